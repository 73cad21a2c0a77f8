// Argo's expression forms used by the compiler: DAG `depends` (task results joined with && || ! and
// parentheses) and the simple `when` comparisons Argo evaluates with govaluate after substitution.

export type TaskResult = 'Succeeded' | 'Failed' | 'Errored' | 'Skipped' | 'Omitted' | 'Daemoned';
const RESULTS = new Set([
  'Succeeded',
  'Failed',
  'Errored',
  'Skipped',
  'Omitted',
  'Daemoned',
  'AnySucceeded',
  'AllFailed',
]);

type Tok =
  { t: 'op'; v: string } | { t: 'id'; v: string } | { t: 'str'; v: string } | { t: 'num'; v: number };

function tokenize(src: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const two = src.slice(i, i + 2);
    if (['&&', '||', '==', '!=', '<=', '>='].includes(two)) {
      out.push({ t: 'op', v: two });
      i += 2;
      continue;
    }
    if ('()!<>'.includes(c)) {
      out.push({ t: 'op', v: c });
      i++;
      continue;
    }
    if (c === '"' || c === "'") {
      const end = src.indexOf(c, i + 1);
      if (end < 0) throw new Error(`unterminated string in ${src}`);
      out.push({ t: 'str', v: src.slice(i + 1, end) });
      i = end + 1;
      continue;
    }
    const m = /^-?[0-9]+(\.[0-9]+)?(?![A-Za-z_])/.exec(src.slice(i));
    if (m) {
      out.push({ t: 'num', v: Number(m[0]) });
      i += m[0].length;
      continue;
    }
    const id = /^[A-Za-z0-9_.\-/:]+/.exec(src.slice(i));
    if (!id) throw new Error(`unexpected '${c}' in expression ${src}`);
    out.push({ t: 'id', v: id[0] });
    i += id[0].length;
  }
  return out;
}

type Value = boolean | string | number;

/** A small recursive-descent evaluator: || over && over ! over comparisons over atoms. */
function evaluate(src: string, atom: (tok: Tok) => Value): Value {
  const toks = tokenize(src);
  let p = 0;
  const peek = () => toks[p];
  const isOp = (v: string) => peek()?.t === 'op' && peek()!.v === v;
  const or = (): Value => {
    let l = and();
    while (isOp('||')) {
      p++;
      const r = and();
      l = truthy(l) || truthy(r);
    }
    return l;
  };
  const and = (): Value => {
    let l = not();
    while (isOp('&&')) {
      p++;
      const r = not();
      l = truthy(l) && truthy(r);
    }
    return l;
  };
  const not = (): Value => {
    if (isOp('!')) {
      p++;
      return !truthy(not());
    }
    return cmp();
  };
  const cmp = (): Value => {
    const l = primary();
    const t = peek();
    if (t?.t === 'op' && ['==', '!=', '<', '>', '<=', '>='].includes(t.v)) {
      p++;
      const r = primary();
      const [a, b] =
        typeof l === 'number' || typeof r === 'number' ? [Number(l), Number(r)] : [String(l), String(r)];
      switch (t.v) {
        case '==':
          return a === b;
        case '!=':
          return a !== b;
        case '<':
          return a < b;
        case '>':
          return a > b;
        case '<=':
          return a <= b;
        default:
          return a >= b;
      }
    }
    return l;
  };
  const primary = (): Value => {
    const t = toks[p++];
    if (!t) throw new Error(`unexpected end of expression ${src}`);
    if (t.t === 'op' && t.v === '(') {
      const v = or();
      if (!isOp(')')) throw new Error(`missing ) in ${src}`);
      p++;
      return v;
    }
    if (t.t === 'op') throw new Error(`unexpected '${t.v}' in ${src}`);
    return atom(t);
  };
  const v = or();
  if (p !== toks.length) throw new Error(`trailing tokens in ${src}`);
  return v;
}

const truthy = (v: Value) => (typeof v === 'string' ? v === 'true' : Boolean(v));

/** Task names a `depends` expression refers to. */
export function dependsTasks(depends: string): string[] {
  const names = new Set<string>();
  for (const t of tokenize(depends)) {
    if (t.t !== 'id') continue;
    const dot = t.v.lastIndexOf('.');
    names.add(dot > 0 && RESULTS.has(t.v.slice(dot + 1)) ? t.v.slice(0, dot) : t.v);
  }
  return [...names];
}

export interface TaskOutcome {
  phase: string;
  /** For task groups: phases of the children. */
  children?: string[];
}

/** Evaluates a `depends` expression over the outcomes of finished tasks. */
export function evalDepends(depends: string, outcome: (task: string) => TaskOutcome | undefined): boolean {
  const result = (o: TaskOutcome, r: string): boolean => {
    switch (r) {
      case 'Succeeded':
        return o.phase === 'Succeeded';
      case 'Failed':
        return o.phase === 'Failed';
      case 'Errored':
        return o.phase === 'Error';
      case 'Skipped':
        return o.phase === 'Skipped';
      case 'Omitted':
        return o.phase === 'Omitted';
      case 'Daemoned':
        return false;
      case 'AnySucceeded':
        return (o.children ?? []).some((c) => c === 'Succeeded');
      case 'AllFailed':
        // Argo counts Failed children only (dag.go evaluateDependsLogic), not Error
        return (o.children ?? []).length > 0 && (o.children ?? []).every((c) => c === 'Failed');
      default:
        return false;
    }
  };
  return truthy(
    evaluate(depends, (t) => {
      if (t.t !== 'id') throw new Error(`unexpected literal in depends ${depends}`);
      const dot = t.v.lastIndexOf('.');
      const hasResult = dot > 0 && RESULTS.has(t.v.slice(dot + 1));
      const task = hasResult ? t.v.slice(0, dot) : t.v;
      const o = outcome(task);
      if (!o) throw new Error(`depends refers to unknown task ${task}`);
      if (!hasResult) return o.phase === 'Succeeded' || o.phase === 'Skipped';
      return result(o, t.v.slice(dot + 1));
    }),
  );
}

/** Evaluates an already substituted `when` condition (govaluate subset: comparisons, && || !, literals). */
export function evalWhen(when: string): boolean {
  return truthy(
    evaluate(when, (t) => {
      if (t.t === 'num') return t.v;
      if (t.t === 'str') return t.v;
      if (t.t === 'id' && (t.v === 'true' || t.v === 'false')) return t.v === 'true';
      return t.t === 'id' ? t.v : '';
    }),
  );
}
