/**
 * Evaluates a CRD's `x-kubernetes-validations` against an object the way apiextensions'
 * cel.Validator does: rules run at the schema node they sit on with `self` bound to the value
 * there, transition rules only where an old value correlates (object fields, map entries,
 * map-type list items), per-call and per-request cost limits, and the rule's message, reason and
 * fieldPath shaping the field error. Errors of unchanged values are ratcheted into warnings.
 */
import type { FieldError, JSONSchemaProps, ValidationRule } from '../../types.js';
import * as fe from '../field-errors.js';
import { deepEqual, isObject } from '../json-value.js';
import { type CompiledRule, rulesOf, schemaHasRules } from './compile.js';
import { COST_LIMIT_MESSAGE, CostLimitExceeded, metered } from './cost.js';
import { toCel } from './values.js';

/** k8s.io/apiserver/pkg/apis/cel: PerCallLimit and RuntimeCELCostBudget. */
export const PER_CALL_LIMIT = 1_000_000;
export const RUNTIME_COST_BUDGET = 10_000_000;

/** celconfig.MaxEvaluatedMessageExpressionSizeBytes */
const MAX_MESSAGE_BYTES = 5 * 1024;

export interface RuleOutcome {
  errors: FieldError[];
  /** Failures of values the update left unchanged: kube-apiserver returns them as warnings. */
  warnings: string[];
}

interface Walk {
  budget: number;
  stopped: boolean;
  out: RuleOutcome;
  limits: { perCall: number };
}

/**
 * Runs every rule of `schema` over `obj` (and `old` on update). Returns no errors for a schema
 * without rules, without converting anything.
 */
export function validateRules(
  schema: JSONSchemaProps,
  obj: unknown,
  old?: unknown,
  limits = { perCall: PER_CALL_LIMIT, budget: RUNTIME_COST_BUDGET },
): RuleOutcome {
  const out: RuleOutcome = { errors: [], warnings: [] };
  if (!schemaHasRules(schema)) return out;
  const walk: Walk = { budget: limits.budget, stopped: false, out, limits };
  const root = isObject(obj) ? resourceRoot(obj) : obj;
  const oldRoot = isObject(old) ? resourceRoot(old) : undefined;
  visit(walk, schema, root, oldRoot, '', () => false);
  return out;
}

/** At the resource root rules see apiVersion, kind and only metadata.name and generateName. */
function resourceRoot(obj: Record<string, unknown>): Record<string, unknown> {
  const meta = isObject(obj.metadata) ? obj.metadata : {};
  const visible: Record<string, unknown> = {};
  if (meta.name !== undefined) visible.name = meta.name;
  if (meta.generateName !== undefined) visible.generateName = meta.generateName;
  return { ...obj, metadata: visible };
}

const child = (path: string, name: string) => (path === '' ? name : `${path}.${name}`);

function visit(
  walk: Walk,
  schema: JSONSchemaProps,
  value: unknown,
  old: unknown,
  path: string,
  ancestorUnchanged: () => boolean,
): void {
  if (walk.stopped || value === null || value === undefined || !schemaHasRules(schema)) return;
  let memo: boolean | undefined;
  // A node with a correlated old value ratchets on its own equality, others on their nearest
  // correlated ancestor's (computed only when a rule fails).
  const unchanged = old === undefined ? ancestorUnchanged : () => (memo ??= deepEqual(value, old));
  const rules = rulesOf(schema);
  if (rules.length) evaluateRules(walk, schema, rules, value, old, path, unchanged);
  for (const sub of schema.allOf ?? []) visit(walk, sub, value, old, path, () => false);
  if (Array.isArray(value)) {
    if (!schema.items) return;
    const oldItems = correlateListItems(schema, old);
    for (let i = 0; i < value.length && !walk.stopped; i++) {
      visit(walk, schema.items, value[i], oldItems(value[i]), `${path}[${i}]`, unchanged);
    }
  } else if (isObject(value)) {
    const oldMap = isObject(old) ? old : undefined;
    const additional =
      typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
    for (const key of Object.keys(value)) {
      if (walk.stopped) return;
      if (additional) visit(walk, additional, value[key], oldMap?.[key], `${path}[${key}]`, unchanged);
      const prop = schema.properties?.[key];
      if (prop) visit(walk, prop, value[key], oldMap?.[key], child(path, key), unchanged);
    }
  }
}

/** Only map-type lists correlate old items, by their keys; other items have no oldSelf. */
function correlateListItems(schema: JSONSchemaProps, old: unknown): (item: unknown) => unknown {
  const keys = schema['x-kubernetes-list-map-keys'] ?? [];
  if (schema['x-kubernetes-list-type'] !== 'map' || !Array.isArray(old) || keys.length === 0)
    return () => undefined;
  const identity = (x: unknown) => (isObject(x) ? JSON.stringify(keys.map((k) => x[k] ?? null)) : '');
  const byKey = new Map(old.map((x) => [identity(x), x]));
  return (item) => byKey.get(identity(item));
}

function ruleErrorString(rule: ValidationRule): string {
  return rule.message?.trim() || rule.rule.trim();
}

function evaluateRules(
  walk: Walk,
  schema: JSONSchemaProps,
  rules: CompiledRule[],
  value: unknown,
  old: unknown,
  path: string,
  unchanged: () => boolean,
): void {
  const type = schema.type ?? '';
  const invalid = (field: string, detail: string) => walk.out.errors.push(fe.invalid(field, type, detail));
  if (walk.budget <= 0) {
    invalid(
      path,
      'validation failed due to running out of cost budget, no further validation rules will be run',
    );
    walk.stopped = true;
    return;
  }
  const self = toCel(schema, value);
  const oldSelf = old === undefined ? undefined : toCel(schema, old);
  const activation = { self, oldSelf };
  for (const compiled of rules) {
    const { rule } = compiled;
    if (compiled.error !== undefined) {
      invalid(path, `rule compile error: ${compiled.error}`);
      continue;
    }
    if (!compiled.program || (compiled.usesOldSelf && old === undefined)) continue;
    let result: unknown;
    try {
      const run = metered(Math.min(walk.limits.perCall, walk.budget), () => compiled.program!(activation));
      walk.budget -= run.cost;
      result = run.value;
    } catch (e) {
      if (e instanceof CostLimitExceeded) {
        if (walk.budget <= walk.limits.perCall) {
          invalid(
            path,
            'validation failed due to running out of cost budget, no further validation rules will be run',
          );
        } else {
          invalid(
            path,
            `'${COST_LIMIT_MESSAGE}': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleErrorString(rule)}`,
          );
        }
        walk.stopped = true;
        return;
      }
      const message = evaluationMessage(e);
      if (message.startsWith('no such overload'))
        invalid(
          path,
          `'${message}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(rule)}`,
        );
      else invalid(path, `${message} evaluating rule: ${ruleErrorString(rule)}`);
      continue;
    }
    if (result === true) continue;
    const field = compiled.fieldPath ? child(path, compiled.fieldPath) : path;
    let detail = rule.message?.trim() || `failed rule: ${rule.rule.trim()}`;
    if (compiled.messageExpression) {
      const message = evaluateMessage(walk, compiled, activation);
      if (message === 'stop') {
        invalid(
          field,
          `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${JSON.stringify(rule.messageExpression)}`,
        );
        walk.stopped = true;
        return;
      }
      if (message !== undefined) detail = message;
    }
    const error = fieldErrorForReason(field, type, detail, rule.reason);
    if (!compiled.usesOldSelf && unchanged()) walk.out.warnings.push(`${error.field}: ${error.message}`);
    else walk.out.errors.push(error);
  }
}

/** The message of a messageExpression, undefined to fall back to the rule's message. */
function evaluateMessage(
  walk: Walk,
  compiled: CompiledRule,
  activation: object,
): string | 'stop' | undefined {
  try {
    const run = metered(Math.min(walk.limits.perCall, walk.budget), () =>
      compiled.messageExpression!(activation),
    );
    walk.budget -= run.cost;
    if (typeof run.value !== 'string') return undefined;
    const text = run.value.trim();
    if (text === '' || text.includes('\n') || Buffer.byteLength(text) > MAX_MESSAGE_BYTES) return undefined;
    return text;
  } catch (e) {
    return e instanceof CostLimitExceeded ? 'stop' : undefined;
  }
}

function fieldErrorForReason(field: string, type: string, detail: string, reason?: string): FieldError {
  switch (reason) {
    case 'FieldValueForbidden':
      return fe.forbidden(field, detail);
    case 'FieldValueRequired':
      return fe.required(field, detail);
    case 'FieldValueDuplicate':
      return fe.duplicate(field, type);
    default:
      return fe.invalid(field, type, detail);
  }
}

/** cel-go's wording of runtime errors, from cel-js's (first line, without the source excerpt). */
function evaluationMessage(e: unknown): string {
  const err = e as { code?: string; summary?: string; message?: string };
  const summary = err.summary ?? String(err.message ?? e).split('\n')[0]!;
  if (err.code === 'no_such_key') return summary.replace(/^No such key/, 'no such key');
  if (err.code === 'index_out_of_bounds') return summary.replace(/^No such key: /, '');
  return summary;
}
