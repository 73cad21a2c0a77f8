// Test support: random valid workflow graphs (fast-check) for the compiler's property tests and the
// kube suite that applies their compiled objects to an API server.
import fc from 'fast-check';
import type { WorkflowSpec } from '@sandflow/crds';

export type Graph = Omit<WorkflowSpec, 'name'>;

/** Random valid DAGs: edges only go from lower to higher index; some nodes feed a switch. */
export const dagArb = fc
  .record({
    n: fc.integer({ min: 1, max: 14 }),
    seed: fc.array(fc.tuple(fc.nat(), fc.nat(), fc.integer({ min: 0, max: 9 })), { maxLength: 40 }),
    switchSeeds: fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat(), fc.boolean()), { maxLength: 4 }),
    cof: fc.array(fc.nat(), { maxLength: 4 }),
  })
  .map(({ n, seed, switchSeeds, cof }): { graph: Graph; cof: string[] } => {
    const names = Array.from({ length: n }, (_, i) => `n${i}`);
    const edges: NonNullable<WorkflowSpec['edges']> = [];
    const switches: NonNullable<WorkflowSpec['switches']> = [];
    const pairs = new Set<string>();
    const multiInto = new Set<string>();
    if (n > 1) {
      for (const [a, b, kind] of seed) {
        const i = a % (n - 1);
        const j = i + 1 + (b % (n - 1 - i));
        const key = `${i}>${j}`;
        if (pairs.has(key)) continue;
        pairs.add(key);
        const multi = kind === 0 && !multiInto.has(names[j]!);
        if (multi) multiInto.add(names[j]!);
        edges.push({
          id: `e${edges.length}`,
          from: names[i]!,
          to: names[j]!,
          type: multi ? 'multi' : 'single',
          ...(multi
            ? { instanceType: 'line' as const, instanceInput: kind % 2 ? 'list.txt' : 'out.txt' }
            : {}),
        });
      }
      const used = new Set<number>();
      for (const [a, b, c, both] of switchSeeds) {
        const i = a % (n - 1);
        if (used.has(i)) continue;
        used.add(i);
        const id = `s${i}`;
        switches.push({ id });
        edges.push({ id: `${id}-in`, from: names[i]!, to: id });
        const j = i + 1 + (b % (n - 1 - i));
        edges.push({ id: `${id}-o1`, from: id, to: names[j]! });
        const k = i + 1 + (c % (n - 1 - i));
        if (both && k !== j) edges.push({ id: `${id}-o2`, from: id, to: names[k]! });
      }
    }
    return {
      graph: { nodes: names.map((x) => ({ id: x, name: x, sandbox: `sb-${x}` })), switches, edges },
      cof: [...new Set(cof.map((c) => names[c % n]!))],
    };
  });
