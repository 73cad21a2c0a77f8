/**
 * Compiles the `x-kubernetes-validations` of a CRD schema once per schema node (a WeakMap on
 * the node: the schema objects live as long as the served CRD version), and reports rules that
 * do not compile the way apiextensions' CRD validation does.
 */
import type { FieldError, JSONSchemaProps, ValidationRule } from '../../types.js';
import * as fe from '../field-errors.js';
import { GoValue, goQuote } from '../go-format.js';
import { ruleEnvironment } from './library.js';

type Program = ReturnType<typeof ruleEnvironment.parse>;

export interface CompiledRule {
  rule: ValidationRule;
  program?: Program;
  messageExpression?: Program;
  usesOldSelf: boolean;
  /** The rule's fieldPath as field.Path prints it relative to the node (`spec.x`, `m[key]`). */
  fieldPath: string;
  /** Why the rule cannot be evaluated (only for CRDs stored before validation existed). */
  error?: string;
}

const SUPPORTED_REASONS = [
  'FieldValueDuplicate',
  'FieldValueForbidden',
  'FieldValueInvalid',
  'FieldValueRequired',
];

const compiledByNode = new WeakMap<JSONSchemaProps, CompiledRule[]>();

/** The compiled rules of one schema node (compiled on first use, then cached). */
export function rulesOf(schema: JSONSchemaProps): CompiledRule[] {
  const rules = schema['x-kubernetes-validations'];
  if (!rules || rules.length === 0) return [];
  let compiled = compiledByNode.get(schema);
  if (!compiled) {
    compiled = rules.map((rule) => compileRule(rule, schema).compiled);
    compiledByNode.set(schema, compiled);
  }
  return compiled;
}

const hasRulesByNode = new WeakMap<JSONSchemaProps, boolean>();

/** Whether the node or anything under it carries rules; lets rule-free branches be skipped. */
export function schemaHasRules(schema: JSONSchemaProps): boolean {
  let has = hasRulesByNode.get(schema);
  if (has === undefined) {
    has =
      Boolean(schema['x-kubernetes-validations']?.length) ||
      (schema.items !== undefined && schemaHasRules(schema.items)) ||
      (typeof schema.additionalProperties === 'object' && schemaHasRules(schema.additionalProperties)) ||
      (schema.allOf ?? []).some(schemaHasRules) ||
      Object.values(schema.properties ?? {}).some(schemaHasRules);
    hasRulesByNode.set(schema, has);
  }
  return has;
}

/** cel-go prints issues as `ERROR: <input>:line:col: msg` with the line and a caret under it. */
function describeIssue(e: unknown, source: string): string {
  const err = e as { summary?: string; message?: string; range?: { start: number } };
  const summary = err.summary ?? String(err.message ?? e).split('\n')[0];
  const start = err.range?.start ?? 0;
  const before = source.slice(0, start);
  const line = before.split('\n').length;
  const column = start - (before.lastIndexOf('\n') + 1);
  const text = source.split('\n')[line - 1] ?? '';
  return `ERROR: <input>:${line}:${column + 1}: ${summary}\n | ${text}\n | ${'.'.repeat(column)}^`;
}

function compileExpression(source: string, want: 'bool' | 'string'): { program?: Program; error?: string } {
  let program: Program;
  try {
    program = ruleEnvironment.parse(source);
  } catch (e) {
    return { error: describeIssue(e, source) };
  }
  const checked = program.check();
  if (!checked.valid) return { error: describeIssue(checked.error, source) };
  if (checked.type !== want && checked.type !== 'dyn')
    return { program, error: `must evaluate to a ${want}` };
  return { program };
}

function referencesOldSelf(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(referencesOldSelf);
  if (!node || typeof node !== 'object') return false;
  const n = node as { op?: unknown; args?: unknown };
  if (n.op === 'id') return n.args === 'oldSelf';
  return 'args' in n && referencesOldSelf(n.args);
}

interface RuleResult {
  compiled: CompiledRule;
  ruleError?: string;
  messageExpressionError?: string;
}

function compileRule(rule: ValidationRule, schema: JSONSchemaProps): RuleResult {
  const out: RuleResult = {
    compiled: { rule, usesOldSelf: false, fieldPath: '' },
  };
  const compiled = out.compiled;
  const main = compileExpression(rule.rule ?? '', 'bool');
  if (main.error) {
    out.ruleError =
      main.error === 'must evaluate to a bool'
        ? 'cel expression must evaluate to a bool'
        : `compilation failed: ${main.error}`;
    compiled.error = out.ruleError;
  } else {
    compiled.program = main.program;
    compiled.usesOldSelf = referencesOldSelf(main.program!.ast);
  }
  if (rule.messageExpression) {
    const msg = compileExpression(rule.messageExpression, 'string');
    if (msg.error) {
      out.messageExpressionError =
        msg.error === 'must evaluate to a string'
          ? 'messageExpression must evaluate to a string'
          : `messageExpression compilation failed: ${msg.error}`;
    } else compiled.messageExpression = msg.program;
  }
  if (rule.fieldPath) compiled.fieldPath = resolveFieldPath(rule.fieldPath, schema) ?? '';
  return out;
}

/** apiextensions' ValidFieldPath: `.a.b`, `['a.b']`, map keys as `[key]`; undefined if invalid. */
export function resolveFieldPath(jsonPath: string, root: JSONSchemaProps): string | undefined {
  const tokens = jsonPath.match(/'(?:[^'\\]|\\.)*'|[.[\]]|[^.[\]']+/g) ?? [];
  let schema: JSONSchemaProps | undefined = root;
  let path = '';
  let i = 0;
  const step = (name: string): boolean => {
    if (schema?.properties) {
      schema = schema.properties[name];
      path = path === '' ? name : `${path}.${name}`;
      return schema !== undefined;
    }
    if (typeof schema?.additionalProperties === 'object') {
      schema = schema.additionalProperties;
      path = `${path}[${name}]`;
      return true;
    }
    return false;
  };
  if (tokens.join('') !== jsonPath || tokens.length === 0) return undefined;
  while (i < tokens.length) {
    const tok = tokens[i++];
    if (tok === '.') {
      const name = tokens[i++];
      if (name === undefined || '.[]'.includes(name) || !step(name)) return undefined;
    } else if (tok === '[') {
      const quoted = tokens[i++];
      if (!quoted || quoted.length < 2 || !quoted.startsWith("'") || !quoted.endsWith("'")) return undefined;
      if (!step(quoted.slice(1, -1).replace(/\\(.)/g, '$1')) || tokens[i++] !== ']') return undefined;
    } else return undefined;
  }
  return path;
}

/** %#v of apiextensions.ValidationRule, which kube-apiserver prints as the bad value of a rule. */
function goValidationRule(rule: ValidationRule): string {
  const ptr = (type: string, v: unknown) =>
    v === undefined ? `(*${type})(nil)` : `(*${type})(0xc000000000)`;
  return (
    `apiextensions.ValidationRule{Rule:${goQuote(rule.rule ?? '')}, Message:${goQuote(rule.message ?? '')}, ` +
    `MessageExpression:${goQuote(rule.messageExpression ?? '')}, Reason:${ptr('apiextensions.FieldValueErrorReason', rule.reason)}, ` +
    `FieldPath:${goQuote(rule.fieldPath ?? '')}, OptionalOldSelf:${ptr('bool', rule.optionalOldSelf)}}`
  );
}

const hasNewline = (s: string) => s.includes('\n');

/**
 * Checks and compiles every rule of a CRD version's schema, as apiextensions does on CRD
 * create and update: field errors for bad rules, none when all compile. Compiled programs are
 * cached on the schema nodes, so the served CRD does not compile them again.
 */
export function checkSchemaRules(root: JSONSchemaProps, rootPath: string): FieldError[] {
  const errors: FieldError[] = [];
  walkSchema(root, rootPath, undefined, errors);
  return errors;
}

function walkSchema(
  schema: JSONSchemaProps,
  path: string,
  uncorrelatable: string | undefined,
  errors: FieldError[],
): void {
  const rules = schema['x-kubernetes-validations'] ?? [];
  const compiled: CompiledRule[] = [];
  rules.forEach((rule, i) => {
    const at = `${path}.x-kubernetes-validations[${i}]`;
    const text = (rule.rule ?? '').trim();
    const message = (rule.message ?? '').trim();
    if (text === '') errors.push(fe.required(`${at}.rule`, 'rule is not specified'));
    else if (rule.message !== undefined && rule.message.length > 0 && message === '')
      errors.push(fe.invalid(`${at}.message`, rule.message, 'message must be non-empty if specified'));
    else if (hasNewline(message))
      errors.push(fe.invalid(`${at}.message`, rule.message, 'message must not contain line breaks'));
    else if (hasNewline(text) && message === '')
      errors.push(fe.required(`${at}.message`, 'message must be specified if rule contains line breaks'));
    if (
      rule.messageExpression !== undefined &&
      rule.messageExpression.length > 0 &&
      rule.messageExpression.trim() === ''
    )
      errors.push(fe.required(`${at}.messageExpression`, 'messageExpression must be non-empty if specified'));
    if (rule.reason !== undefined && !SUPPORTED_REASONS.includes(rule.reason))
      errors.push(fe.notSupported(`${at}.reason`, rule.reason, SUPPORTED_REASONS));
    if (rule.fieldPath !== undefined && rule.fieldPath.length > 0) {
      if (rule.fieldPath.trim() === '')
        errors.push(
          fe.invalid(`${at}.fieldPath`, rule.fieldPath, 'fieldPath must be non-empty if specified'),
        );
      if (hasNewline(rule.fieldPath))
        errors.push(fe.invalid(`${at}.fieldPath`, rule.fieldPath, 'fieldPath must not contain line breaks'));
      if (resolveFieldPath(rule.fieldPath, schema) === undefined)
        errors.push(fe.invalid(`${at}.fieldPath`, rule.fieldPath, 'fieldPath must be a valid path'));
    }
    const result = compileRule(rule, schema);
    compiled.push(result.compiled);
    if (text === '') return;
    if (result.ruleError) errors.push(fe.invalid(`${at}.rule`, goRule(rule), result.ruleError));
    if (result.messageExpressionError)
      errors.push(fe.invalid(`${at}.messageExpression`, goRule(rule), result.messageExpressionError));
    if (result.compiled.program && !result.compiled.usesOldSelf && rule.optionalOldSelf !== undefined)
      errors.push(
        fe.invalid(
          `${at}.optionalOldSelf`,
          rule.optionalOldSelf,
          'may not be set if oldSelf is not used in rule',
        ),
      );
    if (result.compiled.usesOldSelf && uncorrelatable !== undefined)
      errors.push(
        fe.invalid(
          `${at}.rule`,
          rule.rule,
          `oldSelf cannot be used on the uncorrelatable portion of the schema within ${uncorrelatable}`,
        ),
      );
  });
  if (rules.length) compiledByNode.set(schema, compiled);
  for (const [name, prop] of Object.entries(schema.properties ?? {}))
    walkSchema(prop, `${path}.properties[${name}]`, uncorrelatable, errors);
  if (schema.items) {
    const itemsPath = `${path}.items`;
    const correlatable = schema['x-kubernetes-list-type'] === 'map';
    walkSchema(schema.items, itemsPath, uncorrelatable ?? (correlatable ? undefined : itemsPath), errors);
  }
  if (typeof schema.additionalProperties === 'object')
    walkSchema(schema.additionalProperties, `${path}.additionalProperties`, uncorrelatable, errors);
  schema.allOf?.forEach((s, i) => walkSchema(s, `${path}.allOf[${i}]`, uncorrelatable, errors));
}

/** The bad value kube-apiserver shows for a rule: the whole ValidationRule struct. */
function goRule(rule: ValidationRule): GoValue {
  return new GoValue(goValidationRule(rule));
}
