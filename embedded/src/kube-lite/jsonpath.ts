/** The JSONPath subset CRD printer columns use: `.a.b`, `[0]`, `[*]`, `[?(@.k=="v")]`. */
type Step =
  { field: string } | { index: number } | { all: true } | { filter: { path: string[]; value: string } };

const cache = new Map<string, Step[]>();

function compile(expr: string): Step[] {
  const cached = cache.get(expr);
  if (cached) return cached;
  const steps: Step[] = [];
  const re =
    /\.([A-Za-z0-9_-]+)|\[(\d+)\]|\[\*\]|\[\?\(@((?:\.[A-Za-z0-9_-]+)+)\s*==\s*["']([^"']*)["']\)\]|\['([^']+)'\]/g;
  const body = expr.replace(/^\{|\}$/g, '').replace(/^\$/, '');
  let m: RegExpExecArray | null;
  while ((m = re.exec(body))) {
    if (m[1] !== undefined) steps.push({ field: m[1] });
    else if (m[2] !== undefined) steps.push({ index: Number(m[2]) });
    else if (m[3] !== undefined) steps.push({ filter: { path: m[3].slice(1).split('.'), value: m[4]! } });
    else if (m[5] !== undefined) steps.push({ field: m[5] });
    else steps.push({ all: true });
  }
  cache.set(expr, steps);
  return steps;
}

export function evaluate(expr: string, obj: unknown): unknown[] {
  let current: unknown[] = [obj];
  for (const step of compile(expr)) {
    const next: unknown[] = [];
    for (const v of current) {
      if (v === null || v === undefined) continue;
      if ('field' in step) {
        if (typeof v === 'object' && !Array.isArray(v)) next.push((v as Record<string, unknown>)[step.field]);
      } else if ('index' in step) {
        if (Array.isArray(v)) next.push(v[step.index]);
      } else if ('all' in step) {
        if (Array.isArray(v)) next.push(...v);
        else if (typeof v === 'object') next.push(...Object.values(v as object));
      } else if (Array.isArray(v)) {
        for (const item of v) {
          let cur: unknown = item;
          for (const p of step.filter.path)
            cur = cur && typeof cur === 'object' ? (cur as Record<string, unknown>)[p] : undefined;
          if (String(cur) === step.filter.value) next.push(item);
        }
      }
    }
    current = next.filter((v) => v !== undefined);
  }
  return current;
}
