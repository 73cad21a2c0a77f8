import { timingSafeEqual } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import type { WriteContext } from './admission.js';
import { coreVersions, group, groupList, KUBE_VERSION, resourceList } from './discovery.js';
import { StatusError, badRequest, methodNotAllowed, unauthorized } from './errors.js';
import { openApiV3Document, openApiV3Paths, openApiV3Root } from './openapi.js';
import type { ExecServer } from './kubelet/exec-server.js';
import type { PodLogStream } from './kubelet/pod-log.js';
import type { ResourceInfo, ResourceRegistry } from './registry.js';
import {
  decodeBody,
  mediaType,
  parseResourcePath,
  readBody,
  wantsTable,
  type ResourcePath,
} from './request.js';
import type { DeleteOptions, ListOptions, PatchType, RestStorage } from './rest-storage.js';
import { SELECTABLE_FIELDS, parseFieldSelector, parseLabelSelector } from './selectors.js';
import type { ObjectStore } from './store.js';
import { toTable } from './table.js';
import type { KubeObject } from './types.js';
import { isPlainObject } from './util.js';
import { serveWatch } from './watch.js';

export interface HttpDeps {
  token: string;
  store: ObjectStore;
  storage: RestStorage;
  registry: ResourceRegistry;
  log: Logger;
  address: () => string;
  /** `pods/log` when the kubelet runs (kubelet/kubelet.ts, kubelet/pod-log.ts). */
  podLog?: ((namespace: string, name: string, q: URLSearchParams) => Promise<PodLogStream>) | undefined;
}

const PATCH_TYPES: Record<string, PatchType> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
  'application/apply-patch+cbor': 'apply',
};

function sendJson(res: ServerResponse, code: number, body: unknown, warnings: string[] = []): void {
  const payload = JSON.stringify(body);
  const headers: Record<string, string | string[]> = {
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(payload)),
  };
  if (warnings.length) headers.Warning = warnings.map((w) => `299 - ${JSON.stringify(w)}`);
  res.writeHead(code, headers);
  res.end(payload);
}

function authorized(req: IncomingMessage, token: string): boolean {
  const header = req.headers.authorization ?? '';
  const m = /^Bearer\s+(.+)$/i.exec(header);
  if (!m) return false;
  const given = Buffer.from(m[1]!.trim());
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The request handler of kube-lite: discovery, OpenAPI and the resource verbs. */
export function createHandler(deps: HttpDeps) {
  const { registry, storage, store, log } = deps;

  function discovery(pathname: string): unknown {
    if (pathname === '/version' || pathname === '/version/') return KUBE_VERSION;
    if (pathname === '/api' || pathname === '/api/') return coreVersions(deps.address());
    if (pathname === '/apis' || pathname === '/apis/') return groupList(registry);
    if (pathname === '/openapi/v3') return openApiV3Root(registry);
    const segs = pathname.split('/').filter(Boolean);
    if (segs[0] === 'openapi' && segs[1] === 'v3') {
      const key = segs.slice(2).join('/');
      const resources = openApiV3Paths(registry).get(key);
      if (!resources)
        throw new StatusError(404, 'NotFound', 'the server could not find the requested resource');
      return openApiV3Document(resources, segs[segs.length - 1]!);
    }
    if (segs[0] === 'api' && segs.length === 2) return resourceList(registry, '', segs[1]!) ?? notServed();
    if (segs[0] === 'apis' && segs.length === 2) return group(registry, segs[1]!) ?? notServed();
    if (segs[0] === 'apis' && segs.length === 3)
      return resourceList(registry, segs[1]!, segs[2]!) ?? notServed();
    return undefined;
  }

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://kube-lite');
    const pathname = url.pathname.replace(/\/+$/, '') || '/';
    if (!authorized(req, deps.token)) throw unauthorized();
    if (['/healthz', '/readyz', '/livez'].includes(pathname)) {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('ok');
      return;
    }
    if (req.method === 'GET') {
      const doc = discovery(pathname);
      if (doc !== undefined) return sendJson(res, 200, doc);
    }
    const logOf = deps.podLog && req.method === 'GET' ? LOG_PATH.exec(pathname) : null;
    if (logOf) {
      const log = await deps.podLog!(
        decodeURIComponent(logOf[1]!),
        decodeURIComponent(logOf[2]!),
        url.searchParams,
      );
      return sendLog(res, log);
    }
    const path = parseResourcePath(pathname);
    if (!path) throw notServed();
    await serveResource(req, res, url, path);
  }

  function resolve(path: ResourcePath): ResourceInfo {
    const r = registry.find(path.group, path.version, path.resource);
    if (!r) throw notServed();
    if (!r.namespaced && path.namespace !== undefined) throw notServed();
    if (r.namespaced && path.namespace === undefined && path.name !== undefined) throw notServed();
    if (path.subresource !== undefined && !(path.subresource === 'status' && r.hasStatus)) throw notServed();
    return r;
  }

  async function serveResource(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    path: ResourcePath,
  ): Promise<void> {
    const r = resolve(path);
    const q = url.searchParams;
    const namespace = r.namespaced ? path.namespace : undefined;
    const nsKey = namespace ?? '';
    const table = wantsTable(req.headers.accept);
    const includeObject = q.get('includeObject') ?? 'Metadata';
    const subresource = path.subresource as 'status' | undefined;
    const listOptions = (): ListOptions => ({
      labelSelector: parseLabelSelector(q.get('labelSelector') ?? undefined),
      fieldSelector: parseFieldSelector(
        q.get('fieldSelector') ?? undefined,
        SELECTABLE_FIELDS[`${r.group}/${r.plural}`] ?? [],
        r.plural,
      ),
      limit: q.get('limit') ? Number(q.get('limit')) : undefined,
      continueToken: q.get('continue') ?? undefined,
    });

    switch (req.method) {
      case 'GET': {
        const watch = path.watchPrefix || q.get('watch') === 'true' || q.get('watch') === '1';
        if (path.name !== undefined && !watch) {
          const o = storage.view(r, path.version, storage.get(r, nsKey, path.name));
          return sendJson(
            res,
            200,
            table
              ? toTable(r, path.version, [o], { resourceVersion: o.metadata.resourceVersion! }, includeObject)
              : o,
          );
        }
        const opts = listOptions();
        if (watch) {
          if (path.name !== undefined) {
            const byName = parseFieldSelector(`metadata.name=${path.name}`, [], r.plural);
            const other = opts.fieldSelector;
            opts.fieldSelector = other ? (o) => byName!(o) && other(o) : byName;
          }
          return serveWatch(req, res, store, storage, {
            r,
            version: path.version,
            namespace,
            selectors: opts,
            resourceVersion: q.get('resourceVersion') ?? undefined,
            allowBookmarks: q.get('allowWatchBookmarks') === 'true',
            timeoutSeconds: q.get('timeoutSeconds') ? Number(q.get('timeoutSeconds')) : undefined,
            table,
            includeObject,
          });
        }
        const result = storage.list(r, namespace, opts);
        const items = result.items.map((o) => storage.view(r, path.version, o));
        if (table)
          return sendJson(
            res,
            200,
            toTable(
              r,
              path.version,
              items,
              { resourceVersion: result.resourceVersion, continue: result.continueToken },
              includeObject,
            ),
          );
        return sendJson(res, 200, {
          kind: r.listKind,
          apiVersion: r.group ? `${r.group}/${path.version}` : path.version,
          metadata: {
            resourceVersion: result.resourceVersion,
            ...(result.continueToken ? { continue: result.continueToken } : {}),
            ...(result.remainingItemCount !== undefined
              ? { remainingItemCount: result.remainingItemCount }
              : {}),
          },
          items,
        });
      }
      case 'POST': {
        if (path.name !== undefined) throw methodNotAllowed();
        const ctx = writeContext(req, q);
        const body = await readDecoded(req);
        const created = await storage.create(r, path.version, nsKey, body, ctx);
        return sendJson(res, 201, storage.view(r, path.version, created), ctx.warnings);
      }
      case 'PUT': {
        if (path.name === undefined) throw methodNotAllowed();
        const ctx = writeContext(req, q);
        const body = await readDecoded(req);
        const updated = await storage.update(r, path.version, nsKey, path.name, body, ctx, subresource);
        return sendJson(res, 200, storage.view(r, path.version, updated), ctx.warnings);
      }
      case 'PATCH': {
        if (path.name === undefined) throw methodNotAllowed();
        const type = PATCH_TYPES[mediaType(req.headers['content-type'])];
        if (!type)
          throw new StatusError(
            415,
            'UnsupportedMediaType',
            `the body of the request was in an unknown format - accepted media types include: ${Object.keys(PATCH_TYPES).join(', ')}`,
          );
        const ctx = writeContext(req, q);
        if (type === 'apply' && !q.get('fieldManager'))
          throw badRequest(
            'PATCH of type application/apply-patch+yaml requires the fieldManager query parameter',
          );
        const body = await readDecoded(req);
        const force = q.get('force') === 'true';
        const patched = await storage.patch(
          r,
          path.version,
          nsKey,
          path.name,
          type,
          body,
          { ...ctx, force },
          subresource,
        );
        return sendJson(res, 200, storage.view(r, path.version, patched), ctx.warnings);
      }
      case 'DELETE': {
        const body = await readDecoded(req);
        const opts = deleteOptions(q, body);
        if (path.name === undefined) {
          const deleted = await storage.deleteCollection(r, namespace, listOptions(), opts);
          return sendJson(res, 200, {
            kind: r.listKind,
            apiVersion: r.group ? `${r.group}/${path.version}` : path.version,
            metadata: { resourceVersion: String(store.resourceVersion) },
            items: deleted.map((o) => storage.view(r, path.version, o)),
          });
        }
        const deleted = await storage.delete(r, nsKey, path.name, opts);
        return sendJson(res, 200, storage.view(r, path.version, deleted));
      }
      default:
        throw methodNotAllowed();
    }
  }

  return (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    serve(req, res)
      .catch((e: unknown) => {
        if (e instanceof StatusError) {
          if (!res.headersSent) sendJson(res, e.code, e.toStatus());
          else res.end();
          return;
        }
        log.error({ err: e, method: req.method, url: req.url }, 'kube-lite request failed');
        if (!res.headersSent)
          sendJson(
            res,
            500,
            new StatusError(
              500,
              'InternalError',
              'an error on the server prevented the request from succeeding',
            ).toStatus(),
          );
        else res.end();
      })
      .finally(() => {
        log.trace(
          { method: req.method, url: req.url, status: res.statusCode, ms: performance.now() - started },
          'kube-lite request',
        );
      });
  };
}

const LOG_PATH = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/log$/;

/**
 * A `pods/log` body, chunked as it is read (with `follow`, each piece flushed as the container
 * writes it), waiting for the client to drain what it was sent; it stops reading (the log file
 * closed, its follow unhooked) as soon as the client goes away.
 */
async function sendLog(res: ServerResponse, log: PodLogStream): Promise<void> {
  const gone = new AbortController();
  const onClose = () => gone.abort();
  res.once('close', onClose);
  try {
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Cache-Control': 'no-cache, private' });
    res.flushHeaders();
    for await (const chunk of log.read(gone.signal)) {
      if (gone.signal.aborted) break;
      if (!res.write(chunk)) await drained(res, gone.signal);
    }
    if (!gone.signal.aborted) res.end();
  } finally {
    res.off('close', onClose);
    gone.abort();
  }
}

/** Resolves once `res` drained or `signal` aborted, whichever first. */
function drained(res: ServerResponse, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    res.once('drain', done);
    signal.addEventListener('abort', done, { once: true });
    if (signal.aborted) done();
  });
}
const EXEC_PATH = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/exec\/?$/;

/** Answers an upgrade request with a Status instead (nothing was upgraded). */
function refuseUpgrade(socket: Duplex, e: StatusError): void {
  const body = JSON.stringify(e.toStatus());
  socket.end(
    `HTTP/1.1 ${e.code} ${STATUS_CODES[e.code] ?? ''}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * The server's `upgrade` listener when the kubelet runs: `pods/exec` (GET or POST, bearer token
 * checked as for every request) goes to the exec server; anything else is refused with a Status.
 */
export function createUpgradeHandler(deps: { token: string; log: Logger; exec: ExecServer }) {
  return (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => undefined);
    try {
      if (!authorized(req, deps.token)) throw unauthorized();
      const url = new URL(req.url ?? '/', 'http://kube-lite');
      const m = EXEC_PATH.exec(url.pathname);
      if (!m) throw notServed();
      if (req.method !== 'GET' && req.method !== 'POST') throw methodNotAllowed();
      deps.exec.upgrade(req, socket, head, decodeURIComponent(m[1]!), decodeURIComponent(m[2]!), url);
    } catch (e) {
      if (e instanceof StatusError) return refuseUpgrade(socket, e);
      deps.log.error({ err: e, url: req.url }, 'kube-lite upgrade failed');
      refuseUpgrade(
        socket,
        new StatusError(500, 'InternalError', 'an error on the server prevented the request from succeeding'),
      );
    }
  };
}

const notServed = () => new StatusError(404, 'NotFound', 'the server could not find the requested resource');

async function readDecoded(req: IncomingMessage): Promise<unknown> {
  const raw = await readBody(req);
  return decodeBody(raw, mediaType(req.headers['content-type']));
}

function writeContext(req: IncomingMessage, q: URLSearchParams): WriteContext {
  const validation = q.get('fieldValidation') ?? 'Warn';
  if (!['Strict', 'Warn', 'Ignore'].includes(validation))
    throw badRequest(`fieldValidation must be one of Ignore, Warn, Strict; got "${validation}"`);
  const dryRun = q.getAll('dryRun');
  if (dryRun.some((d) => d !== 'All')) throw badRequest(`dryRun may only contain "All"`);
  const ua = String(req.headers['user-agent'] ?? 'unknown');
  const manager = q.get('fieldManager') || ua.split('/')[0]!.slice(0, 128) || 'unknown';
  return {
    manager,
    fieldValidation: validation as WriteContext['fieldValidation'],
    dryRun: dryRun.length > 0,
    warnings: [],
  };
}

function deleteOptions(q: URLSearchParams, body: unknown): DeleteOptions {
  const b = (isPlainObject(body) ? body : {}) as {
    propagationPolicy?: string;
    preconditions?: DeleteOptions['preconditions'];
    orphanDependents?: boolean;
    dryRun?: string[];
  };
  let policy = q.get('propagationPolicy') ?? b.propagationPolicy;
  if (policy === undefined && (q.get('orphanDependents') === 'true' || b.orphanDependents === true))
    policy = 'Orphan';
  if (policy !== undefined && !['Background', 'Foreground', 'Orphan'].includes(policy))
    throw badRequest(`propagationPolicy must be one of Background, Foreground, Orphan; got "${policy}"`);
  return {
    propagationPolicy: policy as DeleteOptions['propagationPolicy'],
    preconditions: b.preconditions,
    dryRun: q.getAll('dryRun').length > 0 || (b.dryRun ?? []).length > 0,
  };
}

export type { KubeObject };
