/**
 * The string formats kube-openapi's strfmt registry checks for CRDs. Each checker is a pure
 * predicate over the string value; unknown formats are accepted, as kube strips them.
 */
import { isIPv4, isIPv6 } from 'node:net';

const RFC3339_TIME = /^([01]\d|2[0-3]):([0-5]\d):([0-5]\d|60)(\.\d+)?(z|[+-]([01]\d|2[0-3]):[0-5]\d)$/;
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const EMAIL = /^[^\s@<>()[\],;:"]+@[^\s@<>()[\],;:"]+$/;
const HOSTNAME_LABEL = /^[a-zA-Z0-9](?:[a-zA-Z0-9_-]{0,61}[a-zA-Z0-9])?$/;
const URI_SCHEME = /^[a-zA-Z][a-zA-Z0-9+.-]*:\S*$/;
// Go time.ParseDuration, plus strfmt's spelled-out units (days, weeks) separated by spaces.
const GO_DURATION = /^[-+]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/;
const STRFMT_DURATION =
  /^(?:\s*-?\d+\s*(?:ns|us|µs|ms|s|m|h|d|w|nanoseconds?|microseconds?|milliseconds?|seconds?|minutes?|hours?|days?|weeks?|sec|secs|min|mins|hr|hrs))+\s*$/i;

function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1) return false;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return day <= daysInMonth;
}

function isDateTime(s: string): boolean {
  const lower = s.toLowerCase();
  const t = lower.indexOf('t');
  return t > 0 && isDate(lower.slice(0, t)) && RFC3339_TIME.test(lower.slice(t + 1));
}

function isHostname(s: string): boolean {
  if (s.length === 0 || s.length > 255) return false;
  const labels = s.endsWith('.') ? s.slice(0, -1).split('.') : s.split('.');
  return labels.every((l) => HOSTNAME_LABEL.test(l));
}

function isInt(s: string, bits: 32 | 64): boolean {
  if (!/^[-+]?\d+$/.test(s)) return false;
  const n = BigInt(s);
  const limit = 1n << BigInt(bits - 1);
  return n >= -limit && n < limit;
}

const CHECKERS: Record<string, (s: string) => boolean> = {
  'date-time': isDateTime,
  datetime: isDateTime,
  date: isDate,
  byte: (s) => BASE64.test(s),
  uri: (s) => s.startsWith('/') || URI_SCHEME.test(s),
  email: (s) => EMAIL.test(s),
  hostname: isHostname,
  ipv4: (s) => isIPv4(s),
  ipv6: (s) => isIPv6(s),
  uuid: (s) => UUID.test(s),
  duration: (s) => s === '0' || GO_DURATION.test(s) || STRFMT_DURATION.test(s),
  int32: (s) => isInt(s, 32),
  int64: (s) => isInt(s, 64),
};

/** True when `format` is unknown or `value` satisfies it. */
export function matchesFormat(format: string, value: string): boolean {
  const check = CHECKERS[format];
  return check === undefined || check(value);
}

/** Range check for integer formats applied to JSON numbers. */
export function integerFitsFormat(format: string, value: number): boolean {
  if (format === 'int32') return Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31;
  if (format === 'int64') return Number.isInteger(value) && value >= -(2 ** 63) && value < 2 ** 63;
  return true;
}
