/**
 * The CEL environment of CRD validation rules: `self` and `oldSelf` (typed dyn: the schema
 * is enforced by the OpenAPI pass before rules run), cel-js's standard library, and the
 * Kubernetes libraries rules commonly use (lists, strings, regex, quantity) registered on it.
 */
import { Environment } from '@marcbachmann/cel-js';
import { compileGoRegexp } from '../go-regexp.js';
import { Quantity } from './quantity.js';
import { chargeCost, meterEvaluator } from './cost.js';

type CelValue = unknown;

function compareValues(a: CelValue, b: CelValue): number {
  if (a instanceof Quantity && b instanceof Quantity) return a.compareTo(b);
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if ((typeof a === 'bigint' || typeof a === 'number') && (typeof b === 'bigint' || typeof b === 'number')) {
    // Mixed int/double compare numerically, as CEL's heterogeneous comparison does.
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  throw new Error(`no such overload: comparison of ${typeof a} and ${typeof b}`);
}

function equalValues(a: CelValue, b: CelValue): boolean {
  if (typeof a === 'bigint' || typeof a === 'number')
    return (typeof b === 'bigint' || typeof b === 'number') && a == b;
  if (a instanceof Quantity && b instanceof Quantity) return a.compareTo(b) === 0;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => equalValues(x, b[i]));
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a);
    return (
      ka.length === Object.keys(b).length &&
      ka.every(
        (k) => k in b && equalValues((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
      )
    );
  }
  return a === b;
}

const list = (v: unknown): unknown[] => v as unknown[];

/** sum/min/max of a list keep the element type: int, double, or (for an empty sum) int 0. */
function sum(items: unknown[]): unknown {
  chargeCost(items.length);
  if (items.length === 0) return 0n;
  if (items[0] instanceof Quantity) return (items as Quantity[]).reduce((acc, q) => acc.add(q));
  if (typeof items[0] === 'bigint') return (items as bigint[]).reduce((acc, x) => acc + x, 0n);
  return (items as number[]).reduce((acc, x) => acc + Number(x), 0);
}

function extreme(items: unknown[], sign: 1 | -1, name: string): unknown {
  chargeCost(items.length);
  if (items.length === 0) throw new Error(`${name}(list) argument must not be empty`);
  return items.reduce((best, x) => (compareValues(x, best) * sign > 0 ? x : best));
}

function regexFor(pattern: string): RegExp {
  const re = compileGoRegexp(pattern);
  if (!re) throw new Error(`invalid regular expression: ${pattern}`);
  return new RegExp(re.source, `${re.flags.replace('g', '')}g`);
}

function registerKubernetesLibraries(env: Environment): Environment {
  const fn = (signature: string, handler: (...args: never[]) => unknown) =>
    env.registerFunction(signature, handler as (...args: unknown[]) => unknown);

  // Lists (k8s.io/apiserver/pkg/cel/library/lists.go).
  fn('list.isSorted(): bool', (l: unknown[]) => {
    chargeCost(l.length);
    return list(l).every((x, i, all) => i === 0 || compareValues(all[i - 1], x) <= 0);
  });
  fn('list.sum(): dyn', (l: unknown[]) => sum(l));
  fn('list.min(): dyn', (l: unknown[]) => extreme(l, -1, 'min'));
  fn('list.max(): dyn', (l: unknown[]) => extreme(l, 1, 'max'));
  fn('list.indexOf(dyn): int', (l: unknown[], x: unknown) => {
    chargeCost(l.length);
    return BigInt(l.findIndex((e) => equalValues(e, x)));
  });
  fn('list.lastIndexOf(dyn): int', (l: unknown[], x: unknown) => {
    chargeCost(l.length);
    return BigInt(l.findLastIndex((e) => equalValues(e, x)));
  });

  // Strings (cel-go ext.Strings, version 2) beyond what cel-js already has.
  fn('string.charAt(int): string', (s: string, i: bigint) => {
    const chars = [...s];
    if (i < 0n || i > BigInt(chars.length)) throw new Error(`index out of range: ${i}`);
    return chars[Number(i)] ?? '';
  });
  fn('string.replace(string, string): string', (s: string, from: string, to: string) => {
    chargeCost(s.length / 10);
    return s.split(from).join(to);
  });
  fn('string.replace(string, string, int): string', (s: string, from: string, to: string, n: bigint) => {
    chargeCost(s.length / 10);
    if (n < 0n) return s.split(from).join(to);
    const parts = s.split(from);
    const limit = Number(n);
    return (
      parts.slice(0, limit + 1).join(to) +
      (parts.length > limit + 1 ? from + parts.slice(limit + 1).join(from) : '')
    );
  });

  // Regex (k8s.io/apiserver/pkg/cel/library/regex.go), with RE2 syntax as CRD patterns use.
  fn('string.find(string): string', (s: string, pattern: string) => {
    chargeCost(s.length / 10);
    return regexFor(pattern).exec(s)?.[0] ?? '';
  });
  fn('string.findAll(string): list<string>', (s: string, pattern: string) => {
    chargeCost(s.length / 10);
    return [...s.matchAll(regexFor(pattern))].map((m) => m[0]);
  });
  fn('string.findAll(string, int): list<string>', (s: string, pattern: string, n: bigint) => {
    chargeCost(s.length / 10);
    const all = [...s.matchAll(regexFor(pattern))].map((m) => m[0]);
    return n < 0n ? all : all.slice(0, Number(n));
  });

  // Quantity (k8s.io/apiserver/pkg/cel/library/quantity.go).
  env.registerType('kubernetes.Quantity', Quantity);
  fn('quantity(string): kubernetes.Quantity', (s: string) => Quantity.parse(s));
  fn('isQuantity(string): bool', (s: string) => Quantity.isValid(s));
  const q = 'kubernetes.Quantity';
  fn(`${q}.sign(): int`, (a: Quantity) => BigInt(a.sign()));
  fn(`${q}.isInteger(): bool`, (a: Quantity) => a.isInteger());
  fn(`${q}.asInteger(): int`, (a: Quantity) => a.asInteger());
  fn(`${q}.asApproximateFloat(): double`, (a: Quantity) => a.asApproximateFloat());
  fn(`${q}.compareTo(${q}): int`, (a: Quantity, b: Quantity) => BigInt(a.compareTo(b)));
  fn(`${q}.isGreaterThan(${q}): bool`, (a: Quantity, b: Quantity) => a.compareTo(b) > 0);
  fn(`${q}.isLessThan(${q}): bool`, (a: Quantity, b: Quantity) => a.compareTo(b) < 0);
  fn(`${q}.add(${q}): ${q}`, (a: Quantity, b: Quantity) => a.add(b));
  fn(`${q}.add(int): ${q}`, (a: Quantity, b: bigint) => a.add(Quantity.parse(String(b))));
  fn(`${q}.sub(${q}): ${q}`, (a: Quantity, b: Quantity) => a.sub(b));
  fn(`${q}.sub(int): ${q}`, (a: Quantity, b: bigint) => a.sub(Quantity.parse(String(b))));
  env.registerOperator(`${q} == ${q}`, (a: Quantity, b: Quantity) => a.compareTo(b) === 0);
  return env;
}

/** The one environment every rule compiles in; building it is the expensive part. */
export const ruleEnvironment: Environment = meterEvaluator(
  registerKubernetesLibraries(
    new Environment({ homogeneousAggregateLiterals: false })
      .registerVariable('self', 'dyn')
      .registerVariable('oldSelf', 'dyn'),
  ),
);
