// The subset of argo-server's API the platform reads, served by the local runner from its folders so
// the API has one code path (kube/src/argo-client.ts) on a cluster and here:
//   GET /api/v1/workflows/{namespace}/{name}
//   GET /api/v1/workflows/{namespace}/{name}/log?podName=&logOptions.{container,follow,tailLines,sinceTime.seconds}
//   GET /artifact-files/{namespace}/workflow/{name}/{nodeId}/outputs/{artifactName}
// Bearer token, grpc-gateway's shapes (newline-delimited `{"result":{content,podName}}`, errors as
// `{code,message}`). Logs stay in their files after the step (the runner never removes a run's
// folder), so a finished step's log is its archive.
import { timingSafeEqual, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { KINDS, Kube } from '@sandflow/kube';
import type { Logger } from 'pino';
import { isFinal, type ArgoWorkflow, type NodeStatus } from './argo.js';
import { readLines, tailOffset } from './log-file.js';
import type { Runtime } from './runtime.js';

/** The most lines a tail may ask for: a bigger tail is this one (never the whole file in memory). */
export const MAX_TAIL_LINES = 100_000;
/** Log lines per written chunk of the answer. */
const BATCH = 512;

export interface ArgoServerHandle {
  url: string;
  token: string;
  close(): Promise<void>;
}

const NAME = /^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/;

class Answer extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}
const notFound = (what: string) => new Answer(404, 5, `${what} not found`);

export function argoServerHandler(options: {
  kc: KubeConfig;
  runtime: Runtime;
  token: string;
  logger?: Logger;
}) {
  const kube = new Kube(options.kc);
  const expected = Buffer.from(`Bearer ${options.token}`);
  const { runtime } = options;

  const workflowOf = async (namespace: string, name: string) => {
    if (!NAME.test(namespace) || !NAME.test(name)) throw notFound(`workflow ${namespace}/${name}`);
    const wf = await kube.get<ArgoWorkflow>(KINDS.argoWorkflow, namespace, name);
    if (!wf) throw notFound(`workflow ${namespace}/${name}`);
    return wf;
  };

  /** Argo names pods `<workflow>-<template>-<hash>` (v2) or by node id (v1); the runner's folders use node ids. */
  const nodeOfPod = (wf: ArgoWorkflow, pod: string): NodeStatus | undefined => {
    const nodes = wf.status?.nodes ?? {};
    if (nodes[pod]?.type === 'Pod') return nodes[pod];
    const hash = /-(\d+)$/.exec(pod)?.[1];
    const node = hash ? nodes[`${wf.metadata.name}-${hash}`] : undefined;
    return node?.type === 'Pod' && pod.startsWith(`${wf.metadata.name}-`) ? node : undefined;
  };

  async function logs(res: ServerResponse, wf: ArgoWorkflow, query: URLSearchParams, signal: AbortSignal) {
    const namespace = wf.metadata.namespace!;
    const name = wf.metadata.name!;
    const pod = query.get('podName');
    if (!pod) throw new Answer(400, 3, 'podName is required by this server (one step at a time)');
    const container = query.get('logOptions.container') ?? 'main';
    if (container !== 'main') throw notFound(`container ${container}`);
    const node = nodeOfPod(wf, pod);
    if (!node) throw notFound(`pod ${pod}`);
    const file = path.join(runtime.runDir(namespace, name), node.id, 'main.log');
    if (!fs.existsSync(file)) throw notFound(`log of pod ${pod}`);
    const tail = query.get('logOptions.tailLines');
    const tailLines = tail === null ? undefined : Number(tail);
    if (tailLines !== undefined && !(Number.isInteger(tailLines) && tailLines >= 0))
      throw new Answer(400, 3, 'logOptions.tailLines: a non-negative integer');
    if (query.has('logOptions.sinceTime.seconds') || query.has('logOptions.sinceSeconds'))
      throw new Answer(400, 3, 'logOptions.sinceTime: not served here (the log files carry no timestamps)');
    const follow = query.get('logOptions.follow') === 'true';

    const from = tailLines === undefined ? 0 : await tailOffset(file, Math.min(tailLines, MAX_TAIL_LINES));
    let checked = 0;
    let running = !isFinal(node.phase);
    const live = async () => {
      const handle = runtime.get(node.id);
      if (handle) return !handle.result;
      // Not ours (anymore): the workflow says, looked at once a second at most.
      if (Date.now() - checked > 1000) {
        checked = Date.now();
        const now = (await kube.get<ArgoWorkflow>(KINDS.argoWorkflow, namespace, name))?.status?.nodes?.[
          node.id
        ];
        running = !!now && !isFinal(now.phase);
      }
      return running;
    };
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.flushHeaders();
    const podName = pod;
    for await (const lines of readLines(file, from, { ...(follow ? { live } : {}), signal })) {
      for (let i = 0; i < lines.length; i += BATCH) {
        let chunk = '';
        for (const content of lines.slice(i, i + BATCH))
          chunk += `{"result":${JSON.stringify({ content, podName })}}\n`;
        if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve));
        if (signal.aborted) return;
      }
    }
    res.end();
  }

  async function artifact(res: ServerResponse, wf: ArgoWorkflow, nodeId: string, artifactName: string) {
    const namespace = wf.metadata.namespace!;
    const name = wf.metadata.name!;
    const found = wf.status?.nodes?.[nodeId]?.outputs?.artifacts?.find((a) => a.name === artifactName);
    const key = found?.s3?.key;
    const prefix = `${namespace}/${name}/`;
    if (!key?.startsWith(prefix)) throw notFound(`artifact ${artifactName} of node ${nodeId}`);
    const base = runtime.runDir(namespace, name);
    const file = path.resolve(base, key.slice(prefix.length));
    if (!file.startsWith(base + path.sep)) throw notFound(`artifact ${artifactName}`);
    const stat = await fs.promises.stat(file).catch(() => null);
    if (!stat?.isFile()) throw notFound(`artifact ${artifactName} (file removed)`);
    res.writeHead(200, {
      'content-type': 'application/octet-stream',
      'content-length': String(stat.size),
      'content-disposition': `filename="${path.basename(file).replace(/["\\\r\n]/g, '_')}"`,
    });
    await new Promise<void>((resolve, reject) => {
      const stream = fs.createReadStream(file);
      stream.once('error', reject);
      res.once('close', () => {
        stream.destroy();
        resolve();
      });
      stream.pipe(res).once('finish', resolve);
    });
  }

  async function serve(req: IncomingMessage, res: ServerResponse) {
    const header = Buffer.from(req.headers.authorization ?? '');
    if (header.length !== expected.length || !timingSafeEqual(header, expected))
      throw new Answer(401, 16, 'a valid bearer token is required');
    if (req.method !== 'GET') throw new Answer(405, 12, `${req.method} is not served here`);
    const url = new URL(req.url ?? '/', 'http://runner');
    const parts = url.pathname.split('/').slice(1).map(decodeURIComponent);
    const abort = new AbortController();
    res.once('close', () => abort.abort());
    if (parts[0] === 'api' && parts[1] === 'v1' && parts[2] === 'workflows' && parts.length >= 5) {
      const wf = await workflowOf(parts[3]!, parts[4]!);
      if (parts.length === 5) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(wf));
        return;
      }
      if (parts.length === 6 && parts[5] === 'log') return logs(res, wf, url.searchParams, abort.signal);
    }
    if (parts[0] === 'artifact-files' && parts.length === 7 && parts[5] === 'outputs') {
      if (parts[2] !== 'workflow') throw notFound('archived workflows (none here: workflows are kept)');
      return artifact(res, await workflowOf(parts[1]!, parts[3]!), parts[4]!, parts[6]!);
    }
    throw notFound(`route ${url.pathname}`);
  }

  return (req: IncomingMessage, res: ServerResponse) => {
    serve(req, res).catch((error: unknown) => {
      const answer =
        error instanceof Answer ? error : new Answer(500, 13, `internal error: ${(error as Error).message}`);
      if (!(error instanceof Answer))
        options.logger?.error({ err: error, url: req.url }, 'argo-server subset failed');
      if (res.headersSent) return void res.destroy();
      res
        .writeHead(answer.status, { 'content-type': 'application/json' })
        .end(JSON.stringify({ code: answer.code, message: answer.message }));
    });
  };
}

/** Listens on 127.0.0.1 (a free port unless given) with a fresh token unless given. */
export async function startArgoServer(options: {
  kc: KubeConfig;
  runtime: Runtime;
  token?: string;
  port?: number;
  logger?: Logger;
}): Promise<ArgoServerHandle> {
  const token = options.token ?? randomBytes(24).toString('base64url');
  const server = http.createServer(argoServerHandler({ ...options, token }));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
