// The Session List's search language (spec 2 §2; the spec leaves the grammar open, issue 15
// asks for a small one). Grammar, terms separated by spaces, all of them must hold (AND):
//
//   term   := ['-'] (key ':' value | word)      a leading '-' negates the term
//   key    := name | workflow | status | running | plans | creationDate   (any letter case)
//   value  := text | '"' text with spaces '"'
//   word   := text                              a bare word matches the name
//
//   name:x, workflow:x     the text contains x (case-insensitive)
//   status:s               s one of none (no runs), running, error, general (general error),
//                          ok (ran, no error, not running; also 'completed')
//   running:true|false     the session has a run going
//   plans:n, plans:>n …    the number of schedules/events; operators > >= < <= =
//   creationDate:d         d is YYYY-MM-DD (that day), or with > >= < <=, or a range d1..d2
//
// Examples: `status:running name:nightly`, `-status:error workflow:"ndvi v2" creationDate:>2026-01-01`.
// A term with an unknown key, or a value the key does not accept, is reported in `errors` and
// ignored, so the list stays usable while someone is typing.
import type { SessionItem } from './types';

export const QUERY_KEYS = ['name', 'workflow', 'status', 'running', 'plans', 'creationdate'] as const;
type Key = (typeof QUERY_KEYS)[number];
export const SESSION_STATES = ['none', 'running', 'error', 'general', 'ok'] as const;
export type SessionState = (typeof SESSION_STATES)[number];

type Comparison = '=' | '>' | '>=' | '<' | '<=';
export type Filter =
  | { key: 'name' | 'workflow'; negate: boolean; text: string }
  | { key: 'status'; negate: boolean; state: SessionState }
  | { key: 'running'; negate: boolean; value: boolean }
  | { key: 'plans'; negate: boolean; op: Comparison; value: number }
  | { key: 'creationdate'; negate: boolean; from: number; to: number };

export interface ParsedQuery {
  filters: Filter[];
  errors: string[];
}

/** Splits on spaces, keeping "quoted text" (quotes removed) inside one term. */
export function tokenize(input: string): string[] {
  const tokens: string[] = [];
  const pattern = /(?:[^\s"]+|"[^"]*"?)+/g;
  for (const match of input.matchAll(pattern)) tokens.push(match[0].replace(/"/g, ''));
  return tokens.filter((t) => t.length > 0);
}

const COMPARISON = /^(>=|<=|>|<|=)?(.*)$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

/** A local calendar day as [start, end) in ms; NaN when it is not YYYY-MM-DD. */
function dayRange(text: string): [number, number] {
  if (!DAY.test(text)) return [NaN, NaN];
  const [y, m, d] = text.split('-').map(Number) as [number, number, number];
  const start = new Date(y, m - 1, d).getTime();
  if (new Date(start).getDate() !== d) return [NaN, NaN];
  return [start, start + DAY_MS];
}

function creationFilter(value: string, negate: boolean): Filter | null {
  if (value.includes('..')) {
    const [a = '', b = ''] = value.split('..');
    const [from] = dayRange(a);
    const [, to] = dayRange(b);
    return Number.isNaN(from) || Number.isNaN(to) ? null : { key: 'creationdate', negate, from, to };
  }
  const [, op = '=', day = ''] = COMPARISON.exec(value)!;
  const [start, end] = dayRange(day);
  if (Number.isNaN(start)) return null;
  const range: Record<string, [number, number]> = {
    '=': [start, end],
    '>': [end, Infinity],
    '>=': [start, Infinity],
    '<': [-Infinity, start],
    '<=': [-Infinity, end],
  };
  const [from, to] = range[op]!;
  return { key: 'creationdate', negate, from, to };
}

function filterOf(key: Key, value: string, negate: boolean): Filter | null {
  switch (key) {
    case 'name':
    case 'workflow':
      return value ? { key, negate, text: value.toLowerCase() } : null;
    case 'status': {
      const state = value.toLowerCase() === 'completed' ? 'ok' : value.toLowerCase();
      return (SESSION_STATES as readonly string[]).includes(state)
        ? { key, negate, state: state as SessionState }
        : null;
    }
    case 'running': {
      const v = value.toLowerCase();
      return v === 'true' || v === 'false' ? { key, negate, value: v === 'true' } : null;
    }
    case 'plans': {
      const [, op = '=', number = ''] = COMPARISON.exec(value)!;
      return /^\d+$/.test(number) ? { key, negate, op: op as Comparison, value: Number(number) } : null;
    }
    case 'creationdate':
      return creationFilter(value, negate);
  }
}

export function parseQuery(input: string): ParsedQuery {
  const filters: Filter[] = [];
  const errors: string[] = [];
  for (const token of tokenize(input)) {
    const negate = token.startsWith('-') && token.length > 1;
    const term = negate ? token.slice(1) : token;
    const colon = term.indexOf(':');
    if (colon <= 0) {
      filters.push({ key: 'name', negate, text: term.toLowerCase() });
      continue;
    }
    const key = term.slice(0, colon).toLowerCase();
    const filter = (QUERY_KEYS as readonly string[]).includes(key)
      ? filterOf(key as Key, term.slice(colon + 1), negate)
      : null;
    if (filter) filters.push(filter);
    else errors.push(token);
  }
  return { filters, errors };
}

/**
 * A session's state, also its name's colour (spec 2 §2): no runs, then running, then error,
 * then general error, else ok. Running comes before error so a retried session reads as running.
 */
export function sessionState(session: SessionItem): SessionState {
  if (!session.has_run_list) return 'none';
  if (session.running) return 'running';
  if (session.error) return 'error';
  if (session.general_error) return 'general';
  return 'ok';
}

export const planCount = (session: SessionItem) => session.plans.length;

function compare(a: number, op: Comparison, b: number) {
  return op === '>' ? a > b : op === '>=' ? a >= b : op === '<' ? a < b : op === '<=' ? a <= b : a === b;
}

function holds(filter: Filter, session: SessionItem): boolean {
  switch (filter.key) {
    case 'name':
      return session.name.toLowerCase().includes(filter.text);
    case 'workflow':
      return (session.workflow ?? '').toLowerCase().includes(filter.text);
    case 'status':
      return sessionState(session) === filter.state;
    case 'running':
      return session.running === filter.value;
    case 'plans':
      return compare(planCount(session), filter.op, filter.value);
    case 'creationdate': {
      const time = new Date(session.creation_time).getTime();
      return time >= filter.from && time < filter.to;
    }
  }
}

export const matches = (query: ParsedQuery, session: SessionItem) =>
  query.filters.every((f) => holds(f, session) !== f.negate);
