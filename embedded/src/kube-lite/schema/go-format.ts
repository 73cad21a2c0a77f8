/**
 * Renders values the way Go's fmt and apimachinery's field.Error print them, so the messages
 * kube-lite returns read exactly like kube-apiserver's.
 */

/** Go's `%v` for a float64: shortest digits, exponent form (two-digit minimum) outside [1e-4, 1e21). */
export function goFloat(n: number): string {
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : n < 0 ? '-Inf' : 'NaN';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const [mantissa, expText] = n.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  if (exp < -4 || exp >= 21) {
    const sign = exp < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  return String(n);
}

/** Go's `%v` for a JSON number decoded by apimachinery: integers stay int64, others are float64. */
export function goNumber(n: number): string {
  return Number.isInteger(n) && Math.abs(n) < 2 ** 63 ? n.toFixed(0) : goFloat(n);
}

/** Go's `%q` for a string (strconv.Quote): JSON quoting is the same for printable text. */
export function goQuote(s: string): string {
  return JSON.stringify(s);
}

/** JSON with object keys sorted, as Go's encoding/json renders a map[string]interface{}. */
export function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${sortedJson(obj[k])}`).join(',')}}`;
  }
  if (typeof value === 'number') return goNumber(value);
  return JSON.stringify(value) ?? 'null';
}

/**
 * field.Error's rendering of a bad value: numbers and booleans bare, strings quoted, null as
 * `null`, anything else as JSON.
 */
export function badValue(value: unknown): string {
  if (value instanceof GoValue) return value.text;
  if (typeof value === 'number') return goNumber(value);
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return goQuote(value);
  if (value === null || value === undefined) return 'null';
  return sortedJson(value);
}

/** A bad value kube-apiserver prints with Go's %#v (a struct), carried as its printed form. */
export class GoValue {
  constructor(readonly text: string) {}
}
