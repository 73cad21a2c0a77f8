// Heap snapshot summaries for bench:load's memory diagnosis (a tool, not a test).
//
//   npx tsx bench/load/heap-diff.ts a.heapsnapshot [b.heapsnapshot] [--retainers=Name,...] [--top=25]
//
// One snapshot: self size and count per constructor (V8's node name for objects, the node type —
// (string), (array), (closure), (code)… — otherwise), largest first. Two: the same for both and
// the growth from a to b, largest growth first. --retainers=Name lists, for the objects of that
// constructor in the last snapshot, who holds them: the retaining node's name and the edge (a
// property name or an element index as [n]), by count. --retained=Ctor.field,... gives what each
// group of those fields holds alone (the objects reachable from them and from nothing else), as
// in: --retained=ObjectStore.log,ObjectStore.objects,ListWatch.objects (kube-lite's watch history,
// its objects, the informers' caches).
//
// The snapshots are read without JSON.parse of the whole file (a platform under load writes
// snapshots beyond V8's longest string): the nodes and edges arrays are scanned as numbers and
// the strings array is read one JSON string per line, as Node writes it.
import fs from 'node:fs';

interface Snapshot {
  nodeFields: string[];
  nodeTypes: string[];
  edgeFields: string[];
  edgeTypes: string[];
  nodes: Float64Array;
  edges: Uint32Array;
  strings: string[];
}

function numbersAfter(buf: Buffer, marker: string, from = 0): { values: number[]; end: number } {
  const start = buf.indexOf(marker, from);
  if (start < 0) throw new Error(`no ${marker} in the snapshot`);
  const values: number[] = [];
  let n = 0;
  let inNumber = false;
  let i = start + marker.length;
  for (; i < buf.length; i++) {
    const c = buf[i]!;
    if (c >= 48 && c <= 57) {
      n = n * 10 + (c - 48);
      inNumber = true;
    } else {
      if (inNumber) values.push(n);
      n = 0;
      inNumber = false;
      if (c === 93) break; // ]
    }
  }
  return { values, end: i };
}

export function readSnapshot(file: string): Snapshot {
  const buf = fs.readFileSync(file);
  const headEnd = buf.indexOf('"nodes":[');
  const head = buf.subarray(0, headEnd).toString();
  const meta = JSON.parse(`${head.slice(head.indexOf('{"meta"'), head.lastIndexOf('}') + 1)}`) as {
    meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] };
  };
  const nodes = numbersAfter(buf, '"nodes":[', headEnd);
  const edges = numbersAfter(buf, '"edges":[', nodes.end);
  const stringsAt = buf.indexOf('"strings":[', edges.end) + '"strings":['.length;
  const strings: string[] = [];
  let lineStart = stringsAt;
  for (let i = stringsAt; i <= buf.length; i++) {
    if (i === buf.length || buf[i] === 10) {
      let line = buf.subarray(lineStart, i).toString().trim();
      if (line.startsWith(',')) line = line.slice(1);
      if (line.endsWith(']}')) line = line.slice(0, -2);
      else if (line.endsWith(']')) line = line.slice(0, -1);
      if (line.endsWith(',')) line = line.slice(0, -1);
      if (line) strings.push(JSON.parse(line) as string);
      lineStart = i + 1;
    }
  }
  return {
    nodeFields: meta.meta.node_fields,
    nodeTypes: meta.meta.node_types[0],
    edgeFields: meta.meta.edge_fields,
    edgeTypes: meta.meta.edge_types[0],
    nodes: Float64Array.from(nodes.values),
    edges: Uint32Array.from(edges.values),
    strings,
  };
}

type Summary = Map<string, { count: number; size: number }>;

function nameOf(s: Snapshot, node: number): string {
  const nf = s.nodeFields.length;
  const type = s.nodeTypes[s.nodes[node * nf + s.nodeFields.indexOf('type')]!]!;
  const name = s.strings[s.nodes[node * nf + s.nodeFields.indexOf('name')]!]!;
  return type === 'object' || type === 'native' ? name : `(${type})`;
}

export function summarize(s: Snapshot): Summary {
  const nf = s.nodeFields.length;
  const selfSize = s.nodeFields.indexOf('self_size');
  const out: Summary = new Map();
  for (let n = 0; n < s.nodes.length / nf; n++) {
    const key = nameOf(s, n);
    const e = out.get(key) ?? { count: 0, size: 0 };
    e.count++;
    e.size += s.nodes[n * nf + selfSize]!;
    out.set(key, e);
  }
  return out;
}

/** Who holds the objects named `name`: "retainer name —edge→" by count. */
export function retainersOf(s: Snapshot, name: string): Map<string, number> {
  const nf = s.nodeFields.length;
  const ef = s.edgeFields.length;
  const edgeCount = s.nodeFields.indexOf('edge_count');
  const toNode = s.edgeFields.indexOf('to_node');
  const edgeType = s.edgeFields.indexOf('type');
  const edgeName = s.edgeFields.indexOf('name_or_index');
  const out = new Map<string, number>();
  let e = 0;
  for (let n = 0; n < s.nodes.length / nf; n++) {
    const count = s.nodes[n * nf + edgeCount]!;
    for (let i = 0; i < count; i++, e++) {
      const target = s.edges[e * ef + toNode]! / nf;
      if (nameOf(s, target) !== name) continue;
      const type = s.edgeTypes[s.edges[e * ef + edgeType]!]!;
      if (type === 'weak') continue;
      const raw = s.edges[e * ef + edgeName]!;
      const label = type === 'element' || type === 'hidden' ? `[${type}]` : s.strings[raw]!;
      const key = `${nameOf(s, n)} —${label}→`;
      out.set(key, (out.get(key) ?? 0) + 1);
    }
  }
  return out;
}

/** Bytes (and objects) reachable only through the `field` of objects named `ctor`, per `ctor.field`. */
export function retainedBy(
  s: Snapshot,
  specs: string[],
): Map<string, { fields: number; size: number; count: number }> {
  const nf = s.nodeFields.length;
  const ef = s.edgeFields.length;
  const edgeCount = s.nodeFields.indexOf('edge_count');
  const selfSize = s.nodeFields.indexOf('self_size');
  const toNode = s.edgeFields.indexOf('to_node');
  const edgeType = s.edgeFields.indexOf('type');
  const edgeName = s.edgeFields.indexOf('name_or_index');
  const weak = s.edgeTypes.indexOf('weak');
  const property = s.edgeTypes.indexOf('property');
  const count = s.nodes.length / nf;
  const firstEdge = new Uint32Array(count + 1);
  for (let n = 0, e = 0; n < count; n++) {
    firstEdge[n] = e;
    e += s.nodes[n * nf + edgeCount]!;
    firstEdge[n + 1] = e;
  }
  const reach = (from: number[], blocked: Set<number>) => {
    const seen = new Uint8Array(count);
    const stack = from.filter((n) => !blocked.has(n));
    for (const n of stack) seen[n] = 1;
    while (stack.length) {
      const n = stack.pop()!;
      for (let e = firstEdge[n]!; e < firstEdge[n + 1]!; e++) {
        if (s.edges[e * ef + edgeType] === weak) continue;
        const t = s.edges[e * ef + toNode]! / nf;
        if (seen[t] || blocked.has(t)) continue;
        seen[t] = 1;
        stack.push(t);
      }
    }
    return seen;
  };
  const fields = new Map<string, number[]>(specs.map((spec) => [spec, []]));
  for (let n = 0; n < count; n++)
    for (const spec of specs) {
      const [ctor, field] = spec.split('.') as [string, string];
      if (nameOf(s, n) !== ctor) continue;
      for (let e = firstEdge[n]!; e < firstEdge[n + 1]!; e++)
        if (s.edges[e * ef + edgeType] === property && s.strings[s.edges[e * ef + edgeName]!] === field)
          fields.get(spec)!.push(s.edges[e * ef + toNode]! / nf);
    }
  fields.set('(all of them)', [...fields.values()].flat());
  const out = new Map<string, { fields: number; size: number; count: number }>();
  for (const [spec, nodes] of fields) {
    const fromRoots = reach([0], new Set(nodes)); // node 0 is the synthetic root
    const held = reach(nodes, new Set());
    let size = 0;
    let objects = 0;
    for (let n = 0; n < count; n++)
      if (held[n] && !fromRoots[n]) {
        size += s.nodes[n * nf + selfSize]!;
        objects++;
      }
    out.set(spec, { fields: nodes.length, size, count: objects });
  }
  return out;
}

const mb = (n: number) => `${(n / 2 ** 20).toFixed(1)} MB`;

if (import.meta.url === `file://${process.argv[1]}`) {
  const files = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  const option = (name: string) =>
    process.argv
      .find((a) => a.startsWith(`--${name}=`))
      ?.split('=')
      .slice(1)
      .join('=');
  const top = Number(option('top') ?? 25);
  const snapshots = files.map((f) => readSnapshot(f));
  const summaries = snapshots.map(summarize);
  const total = (s: Summary) => [...s.values()].reduce((a, b) => a + b.size, 0);
  for (const [i, f] of files.entries()) process.stdout.write(`${f}: ${mb(total(summaries[i]!))} self size\n`);
  const [a, b] = summaries;
  const rows = [...(b ?? a!).keys()].map((k) => {
    const x = a!.get(k) ?? { count: 0, size: 0 };
    const y = b?.get(k) ?? x;
    return { k, x, y, growth: y.size - (b ? x.size : 0) };
  });
  rows.sort((p, q) => q.growth - p.growth);
  process.stdout.write(
    b
      ? `\nlargest growth (constructor: count a → b, size a → b)\n`
      : `\nlargest (constructor: count, size)\n`,
  );
  for (const r of rows.slice(0, top))
    process.stdout.write(
      b
        ? `  ${r.k.slice(0, 50).padEnd(50)} ${String(r.x.count).padStart(9)} → ${String(r.y.count).padEnd(9)} ${mb(r.x.size).padStart(10)} → ${mb(r.y.size).padEnd(10)} (+${mb(r.growth)})\n`
        : `  ${r.k.slice(0, 50).padEnd(50)} ${String(r.x.count).padStart(9)} ${mb(r.x.size).padStart(10)}\n`,
    );
  const retained = (option('retained') ?? '').split(',').filter(Boolean);
  if (retained.length)
    for (const [i, snap] of snapshots.entries()) {
      process.stdout.write(`\nheld only through (${files[i]}): fields, size, objects\n`);
      for (const [spec, r] of retainedBy(snap, retained))
        process.stdout.write(
          `  ${spec.padEnd(30)} ${String(r.fields).padStart(4)} ${mb(r.size).padStart(10)} ${r.count}\n`,
        );
    }
  for (const name of (option('retainers') ?? '').split(',').filter(Boolean)) {
    const held = [...retainersOf(snapshots.at(-1)!, name)].sort((p, q) => q[1] - p[1]);
    process.stdout.write(`\n${name} held by (count)\n`);
    for (const [k, n] of held.slice(0, top)) process.stdout.write(`  ${String(n).padStart(8)}  ${k}\n`);
  }
}
