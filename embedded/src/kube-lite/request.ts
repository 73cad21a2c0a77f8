import type { IncomingMessage } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { StatusError, badRequest } from './errors.js';
import { decodeProtobuf } from './protobuf.js';

export const MAX_BODY_BYTES = 3 * 1024 * 1024;

/** What a resource URL names, before the resource is looked up. */
export interface ResourcePath {
  group: string;
  version: string;
  namespace: string | undefined;
  resource: string;
  name: string | undefined;
  subresource: string | undefined;
  /** The deprecated `/watch/` path prefix. */
  watchPrefix: boolean;
}

/** Parses `/api/v1/...` and `/apis/{group}/{version}/...` into a ResourcePath. */
export function parseResourcePath(pathname: string): ResourcePath | undefined {
  const segs = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  let group: string;
  let version: string;
  let rest: string[];
  if (segs[0] === 'api' && segs.length >= 3) {
    group = '';
    version = segs[1]!;
    rest = segs.slice(2);
  } else if (segs[0] === 'apis' && segs.length >= 4) {
    group = segs[1]!;
    version = segs[2]!;
    rest = segs.slice(3);
  } else return undefined;
  let watchPrefix = false;
  if (rest[0] === 'watch') {
    watchPrefix = true;
    rest = rest.slice(1);
  }
  const path: ResourcePath = {
    group,
    version,
    namespace: undefined,
    resource: '',
    name: undefined,
    subresource: undefined,
    watchPrefix,
  };
  if (
    rest[0] === 'namespaces' &&
    rest.length >= 3 &&
    !(rest.length === 3 && ['status', 'finalize'].includes(rest[2]!))
  ) {
    path.namespace = rest[1];
    rest = rest.slice(2);
  }
  if (rest.length < 1 || rest.length > 3) return undefined;
  path.resource = rest[0]!;
  path.name = rest[1];
  path.subresource = rest[2];
  return path;
}

export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > MAX_BODY_BYTES) {
      req.resume();
      reject(tooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        chunks.length = 0;
        req.removeAllListeners('data');
        req.resume();
        reject(tooLarge());
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

const tooLarge = () =>
  new StatusError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${MAX_BODY_BYTES}`);

/** Decodes a JSON or YAML request body. */
export function decodeBody(raw: Buffer, contentType: string): unknown {
  if (raw.length === 0) return undefined;
  if (contentType === 'application/vnd.kubernetes.protobuf') return decodeProtobuf(raw);
  if (/protobuf|cbor/.test(contentType))
    throw new StatusError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf`,
    );
  const text = raw.toString('utf8');
  const isYaml = /yaml/.test(contentType);
  try {
    if (isYaml) return parseYaml(text, { strict: true, uniqueKeys: true });
    return JSON.parse(text);
  } catch (e) {
    const why = e instanceof Error ? e.message.split('\n')[0] : String(e);
    throw badRequest(`the request body could not be decoded as ${isYaml ? 'YAML' : 'JSON'}: ${why}`);
  }
}

export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** True when the client asked for a meta.k8s.io Table (kubectl get). */
export function wantsTable(accept: string | undefined): boolean {
  if (!accept) return false;
  const first = accept.split(',')[0] ?? '';
  return /as=Table/.test(first);
}
