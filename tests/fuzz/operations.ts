// The operations of api/openapi.yaml, read at test time so every new route is fuzzed without
// editing the suite.
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import type { JsonSchema } from './arbitraries.js';

export const OPENAPI_FILE = path.resolve(import.meta.dirname, '../../api/openapi.yaml');

export interface Operation {
  method: 'get' | 'post' | 'put' | 'delete';
  /** OpenAPI form: /sandbox/{uuid} */
  path: string;
  access: string;
  pathParams: { name: string; schema: JsonSchema }[];
  queryParams: { name: string; schema: JsonSchema }[];
  body?: JsonSchema;
  /** Raw body types accepted besides JSON and forms (uploads). */
  rawTypes: string[];
  /** The documented success status. */
  success: number;
  /** The success answer is the JSON envelope (else an image, a document or a redirect). */
  enveloped: boolean;
}

interface RawOperation {
  'x-access'?: string;
  parameters?: { name: string; in: string; schema: JsonSchema }[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>;
}

export function readOperations(file = OPENAPI_FILE): Operation[] {
  const doc = YAML.parse(fs.readFileSync(file, 'utf8')) as {
    paths: Record<string, Record<string, RawOperation>>;
  };
  const operations: Operation[] = [];
  for (const [p, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const parameters = op.parameters ?? [];
      const content = op.requestBody?.content ?? {};
      const successKey = Object.keys(op.responses).find((k) => k !== 'default') ?? '200';
      const success = op.responses[successKey];
      operations.push({
        method: method as Operation['method'],
        path: p,
        access: op['x-access'] ?? 'unknown',
        pathParams: parameters.filter((x) => x.in === 'path'),
        queryParams: parameters.filter((x) => x.in === 'query'),
        ...(content['application/json'] ? { body: content['application/json'].schema } : {}),
        rawTypes: Object.keys(content).filter(
          (t) => t !== 'application/json' && t !== 'application/x-www-form-urlencoded',
        ),
        success: Number(successKey),
        enveloped: Boolean(success?.content?.['application/json']?.schema),
      });
    }
  }
  return operations;
}

const METHOD_ORDER = { get: 0, post: 1, put: 2, delete: 3 } as const;
/** Reads first, then writes, then deletes, and deletes of people and organizations last of all. */
export function destructiveLast(a: Operation, b: Operation): number {
  const weight = (o: Operation) =>
    METHOD_ORDER[o.method] * 10 +
    (o.method === 'delete' && /^\/(user|organizations)\/\{id\}$/.test(o.path) ? 5 : 0);
  return weight(a) - weight(b) || a.path.localeCompare(b.path);
}
