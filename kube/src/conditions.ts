// Status helpers: conditions that keep their transition time, and JSON comparison for "did it change".

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  observedGeneration?: number;
}

/** Sets a condition, keeping lastTransitionTime when its status does not change. */
export function setCondition<C extends Condition>(
  conditions: C[] | undefined,
  c: Omit<C, 'lastTransitionTime'>,
  now: Date,
): C[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((x) => x.type === c.type);
  const prev = i >= 0 ? list[i] : undefined;
  const next = {
    ...c,
    lastTransitionTime: prev && prev.status === c.status ? prev.lastTransitionTime : now.toISOString(),
  } as C;
  if (i >= 0) list[i] = next;
  else list.push(next);
  return list;
}

/** JSON equality ignoring key order and undefined members. */
export function sameJson(a: unknown, b: unknown): boolean {
  return stable(a) === stable(b);
}
function stable(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stable).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v as object)
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stable((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}
