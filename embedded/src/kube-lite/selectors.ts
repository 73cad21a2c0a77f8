import { badRequest } from './errors.js';

type Requirement =
  { key: string; op: 'in' | 'notin'; values: string[] } | { key: string; op: 'exists' | '!exists' };

export type LabelSelector = (labels: Record<string, string> | undefined) => boolean;

const LABEL_KEY =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/** Splits on commas that are not inside a `( … )` value list. */
function splitTopLevel(s: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts.map((p) => p.trim()).filter((p) => p.length > 0);
}

function parseRequirement(term: string): Requirement {
  let m = /^(\S+?)\s+(in|notin)\s*\(([^)]*)\)$/.exec(term);
  if (m) {
    const values = m[3]!
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v.length > 0);
    return checkKey({ key: m[1]!, op: m[2] as 'in' | 'notin', values });
  }
  m = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(term);
  if (m) return checkKey({ key: m[1]!, op: m[2] === '!=' ? 'notin' : 'in', values: [m[3]!] });
  m = /^!\s*(\S+)$/.exec(term);
  if (m) return checkKey({ key: m[1]!, op: '!exists' });
  if (/^\S+$/.test(term)) return checkKey({ key: term, op: 'exists' });
  throw badRequest(`unable to parse requirement: found '${term}', expected: identifier`);
}

function checkKey<T extends Requirement>(r: T): T {
  if (!LABEL_KEY.test(r.key)) throw badRequest(`unable to parse requirement: invalid label key "${r.key}"`);
  return r;
}

export function parseLabelSelector(selector: string | undefined): LabelSelector | undefined {
  if (!selector || !selector.trim()) return undefined;
  const reqs = splitTopLevel(selector).map(parseRequirement);
  return (labels) =>
    reqs.every((r) => {
      const has = labels !== undefined && Object.prototype.hasOwnProperty.call(labels, r.key);
      switch (r.op) {
        case 'exists':
          return has;
        case '!exists':
          return !has;
        case 'in':
          return has && r.values.includes(labels[r.key]!);
        case 'notin':
          return !has || !r.values.includes(labels[r.key]!);
      }
    });
}

export type FieldSelector = (obj: Record<string, unknown>) => boolean;

function fieldValue(obj: Record<string, unknown>, path: string): string {
  let cur: unknown = obj;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return '';
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur === undefined || cur === null ? '' : String(cur);
}

/**
 * Field selectors work only on the fields kube-apiserver indexes for that kind;
 * `metadata.name` and `metadata.namespace` everywhere.
 */
export function parseFieldSelector(
  selector: string | undefined,
  allowed: readonly string[],
  resource: string,
): FieldSelector | undefined {
  if (!selector || !selector.trim()) return undefined;
  const terms = selector
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean)
    .map((t) => {
      const m = /^([^=!]+?)\s*(==|=|!=)\s*(.*)$/.exec(t);
      if (!m) throw badRequest(`invalid selector: '${selector}'; can't understand '${t}'`);
      const field = m[1]!.trim();
      if (!['metadata.name', 'metadata.namespace', ...allowed].includes(field)) {
        throw badRequest(`field label not supported: ${field}`);
      }
      return { field, negate: m[2] === '!=', value: m[3]! };
    });
  void resource;
  return (obj) => terms.every((t) => (fieldValue(obj, t.field) === t.value) !== t.negate);
}

/** Extra fields kube-apiserver allows in field selectors, by resource. */
export const SELECTABLE_FIELDS: Record<string, readonly string[]> = {
  '/events': [
    'involvedObject.kind',
    'involvedObject.namespace',
    'involvedObject.name',
    'involvedObject.uid',
    'involvedObject.apiVersion',
    'involvedObject.resourceVersion',
    'involvedObject.fieldPath',
    'reason',
    'reportingComponent',
    'source',
    'type',
  ],
  '/secrets': ['type'],
  '/namespaces': ['status.phase'],
};
