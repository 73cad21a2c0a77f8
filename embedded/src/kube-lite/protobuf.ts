import { badRequest } from './errors.js';

// kubectl's typed clients (`kubectl create configmap|namespace|secret|…`) send bodies
// as Kubernetes protobuf and client-go has no JSON fallback for requests, so kube-lite
// reads the wire format for the built-in kinds those generators create.

type Field = { no: number; wire: number; value: bigint | Buffer };

function readVarint(buf: Buffer, pos: number): [bigint, number] {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    if (pos >= buf.length) throw badRequest('protobuf body is truncated');
    const b = buf[pos++]!;
    result |= BigInt(b & 0x7f) << shift;
    if ((b & 0x80) === 0) return [result, pos];
    shift += 7n;
    if (shift > 63n) throw badRequest('protobuf varint is too long');
  }
}

function fields(buf: Buffer): Field[] {
  const out: Field[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const [tag, p1] = readVarint(buf, pos);
    pos = p1;
    const no = Number(tag >> 3n);
    const wire = Number(tag & 7n);
    if (wire === 0) {
      const [v, p2] = readVarint(buf, pos);
      out.push({ no, wire, value: v });
      pos = p2;
    } else if (wire === 2) {
      const [len, p2] = readVarint(buf, pos);
      const end = p2 + Number(len);
      if (end > buf.length) throw badRequest('protobuf body is truncated');
      out.push({ no, wire, value: buf.subarray(p2, end) });
      pos = end;
    } else if (wire === 1) {
      out.push({ no, wire, value: buf.subarray(pos, pos + 8) });
      pos += 8;
    } else if (wire === 5) {
      out.push({ no, wire, value: buf.subarray(pos, pos + 4) });
      pos += 4;
    } else throw badRequest(`unsupported protobuf wire type ${wire}`);
  }
  return out;
}

const str = (f: Field) => (f.value as Buffer).toString('utf8');
const num = (f: Field) => Number(f.value as bigint);
const bool = (f: Field) => (f.value as bigint) !== 0n;

function map(fs: Field[], no: number, bytes = false): Record<string, string> | undefined {
  const entries = fs.filter((f) => f.no === no);
  if (entries.length === 0) return undefined;
  const out: Record<string, string> = {};
  for (const e of entries) {
    const kv = fields(e.value as Buffer);
    const k = kv.find((f) => f.no === 1);
    const v = kv.find((f) => f.no === 2);
    out[k ? str(k) : ''] = v ? (bytes ? (v.value as Buffer).toString('base64') : str(v)) : '';
  }
  return out;
}

type Decoder = (fs: Field[]) => Record<string, unknown>;

function time(buf: Buffer): string {
  const seconds = fields(buf).find((f) => f.no === 1);
  return new Date((seconds ? num(seconds) : 0) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function compact(o: Record<string, unknown>): Record<string, unknown> {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
}

const ownerReference: Decoder = (fs) =>
  compact({
    kind: fs.find((f) => f.no === 1) && str(fs.find((f) => f.no === 1)!),
    name: fs.find((f) => f.no === 3) && str(fs.find((f) => f.no === 3)!),
    uid: fs.find((f) => f.no === 4) && str(fs.find((f) => f.no === 4)!),
    apiVersion: fs.find((f) => f.no === 5) && str(fs.find((f) => f.no === 5)!),
    controller: fs.find((f) => f.no === 6) && bool(fs.find((f) => f.no === 6)!),
    blockOwnerDeletion: fs.find((f) => f.no === 7) && bool(fs.find((f) => f.no === 7)!),
  });

const objectMeta: Decoder = (fs) => {
  const s = (no: number) => {
    const f = fs.find((x) => x.no === no);
    return f ? str(f) : undefined;
  };
  const finalizers = fs.filter((f) => f.no === 14).map(str);
  const owners = fs.filter((f) => f.no === 13).map((f) => ownerReference(fields(f.value as Buffer)));
  const created = fs.find((f) => f.no === 8);
  const generation = fs.find((f) => f.no === 7);
  return compact({
    name: s(1) || undefined,
    generateName: s(2) || undefined,
    namespace: s(3) || undefined,
    uid: s(5) || undefined,
    resourceVersion: s(6) || undefined,
    generation: generation ? num(generation) : undefined,
    creationTimestamp:
      created && (created.value as Buffer).length ? time(created.value as Buffer) : undefined,
    labels: map(fs, 11),
    annotations: map(fs, 12),
    ownerReferences: owners.length ? owners : undefined,
    finalizers: finalizers.length ? finalizers : undefined,
  });
};

const sub = (fs: Field[], no: number, d: Decoder) => {
  const f = fs.find((x) => x.no === no);
  return f ? d(fields(f.value as Buffer)) : undefined;
};
const strings = (fs: Field[], no: number) => {
  const v = fs.filter((f) => f.no === no).map(str);
  return v.length ? v : undefined;
};
const optStr = (fs: Field[], no: number) => {
  const f = fs.find((x) => x.no === no);
  return f ? str(f) : undefined;
};
const optBool = (fs: Field[], no: number) => {
  const f = fs.find((x) => x.no === no);
  return f ? bool(f) : undefined;
};

const KINDS: Record<string, Decoder> = {
  ConfigMap: (fs) =>
    compact({
      metadata: sub(fs, 1, objectMeta),
      data: map(fs, 2),
      binaryData: map(fs, 3, true),
      immutable: optBool(fs, 4),
    }),
  Secret: (fs) =>
    compact({
      metadata: sub(fs, 1, objectMeta),
      data: map(fs, 2, true),
      type: optStr(fs, 3),
      stringData: map(fs, 4),
      immutable: optBool(fs, 5),
    }),
  Namespace: (fs) =>
    compact({
      metadata: sub(fs, 1, objectMeta),
      spec: sub(fs, 2, (s) => compact({ finalizers: strings(s, 1) })),
    }),
  ServiceAccount: (fs) =>
    compact({
      metadata: sub(fs, 1, objectMeta),
      imagePullSecrets: fs
        .filter((f) => f.no === 3)
        .map((f) => compact({ name: optStr(fields(f.value as Buffer), 1) })),
      automountServiceAccountToken: optBool(fs, 4),
    }),
  ResourceQuota: (fs) =>
    compact({
      metadata: sub(fs, 1, objectMeta),
      spec: sub(fs, 2, (s) => {
        const hard: Record<string, string> = {};
        for (const e of s.filter((f) => f.no === 1)) {
          const kv = fields(e.value as Buffer);
          const q = kv.find((f) => f.no === 2);
          hard[str(kv.find((f) => f.no === 1)!)] = q ? (optStr(fields(q.value as Buffer), 1) ?? '0') : '0';
        }
        return compact({ hard: Object.keys(hard).length ? hard : undefined, scopes: strings(s, 2) });
      }),
    }),
  DeleteOptions: (fs) =>
    compact({
      gracePeriodSeconds: fs.find((f) => f.no === 1) ? num(fs.find((f) => f.no === 1)!) : undefined,
      preconditions: sub(fs, 2, (p) => compact({ uid: optStr(p, 1), resourceVersion: optStr(p, 2) })),
      orphanDependents: optBool(fs, 3),
      propagationPolicy: optStr(fs, 4),
      dryRun: strings(fs, 5),
    }),
};

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** Decodes a `application/vnd.kubernetes.protobuf` body into the JSON object it stands for. */
export function decodeProtobuf(raw: Buffer): Record<string, unknown> {
  if (raw.length < 4 || !raw.subarray(0, 4).equals(MAGIC))
    throw badRequest('protobuf body lacks the k8s\\0 prefix');
  const unknown = fields(raw.subarray(4));
  const typeMeta = sub(unknown, 1, (t) => compact({ apiVersion: optStr(t, 1), kind: optStr(t, 2) })) ?? {};
  const payload = unknown.find((f) => f.no === 2);
  const kind = String(typeMeta.kind ?? '');
  const decoder = KINDS[kind];
  if (!decoder)
    throw badRequest(
      `kube-lite reads protobuf only for ${Object.keys(KINDS).join(', ')}; send ${kind || 'this object'} as JSON`,
    );
  return { ...typeMeta, ...decoder(payload ? fields(payload.value as Buffer) : []) };
}
