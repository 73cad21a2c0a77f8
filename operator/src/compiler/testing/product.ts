// Test support: the product's execution rules, written independently of the compiler.
import type { WorkflowSpec } from '@sandflow/crds';

/**
 * The product's rules, independent of Argo: a node runs when its switch conditions hold and its
 * ordinary parents passed (succeeded, or failed with continueOnFail), parents on a branch not taken
 * being ignored unless all are; the run is COMPLETED unless a node that ran failed without
 * continueOnFail and without a switch routing its failure.
 */
export function productRun(spec: Omit<WorkflowSpec, 'name'>, cof: Set<string>, fails: Set<string>) {
  const ids = (spec.nodes ?? []).map((n) => n.id);
  const switchInput = new Map<string, string>();
  for (const e of spec.edges ?? [])
    if ((spec.switches ?? []).some((s) => s.id === e.to)) switchInput.set(e.to, e.from);
  const failRouted = new Set<string>();
  const outputs = new Map<string, number>();
  const incoming = new Map<string, { from: string; when?: 'success' | 'fail' }[]>(ids.map((i) => [i, []]));
  for (const e of spec.edges ?? []) {
    const input = switchInput.get(e.from);
    if (input !== undefined) {
      const idx = outputs.get(e.from) ?? 0;
      outputs.set(e.from, idx + 1);
      const when = e.switchCondition ?? (idx === 1 ? 'fail' : 'success');
      if (when === 'fail') failRouted.add(input);
      incoming.get(e.to)?.push({ from: input, when });
    } else if (incoming.has(e.to) && e.from !== 'start') incoming.get(e.to)!.push({ from: e.from });
  }
  const state = new Map<string, 'ok' | 'fail' | 'skipped' | 'branch'>();
  const resolve = (id: string): 'ok' | 'fail' | 'skipped' | 'branch' => {
    const s = state.get(id);
    if (s) return s;
    let result: 'ok' | 'fail' | 'skipped' | 'branch' | undefined;
    let ranParent = false;
    let ordinary = 0;
    for (const d of incoming.get(id)!) {
      const p = resolve(d.from);
      if (d.when) {
        if ((d.when === 'success' && p !== 'ok') || (d.when === 'fail' && p !== 'fail')) result = 'branch';
        else ranParent = true;
      } else {
        ordinary++;
        if (p === 'branch') continue;
        if (p === 'skipped' || (p === 'fail' && !cof.has(d.from))) result ??= 'skipped';
        else ranParent = true;
      }
    }
    if (!result && ordinary > 0 && !ranParent) result = 'branch';
    result ??= fails.has(id) ? 'fail' : 'ok';
    state.set(id, result);
    return result;
  };
  ids.forEach(resolve);
  const error = ids.some((id) => state.get(id) === 'fail' && !cof.has(id) && !failRouted.has(id));
  const ran = ids.filter((id) => state.get(id) === 'ok' || state.get(id) === 'fail');
  return { outcome: error ? 'ERROR' : 'COMPLETED', ran };
}
