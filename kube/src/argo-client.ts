// The typed client of argo-server's API (types generated from Argo's own document, see
// kube/argo/README.md), reduced to what Sandflow reads: a workflow's nodes, step logs (tail and
// follow, newline-delimited JSON) and output artifacts. On a cluster it talks to argo-server; in
// embedded mode to the local runner, which serves the same routes from its folders.
import createClient from 'openapi-fetch';
import type { components, paths } from './argo-api.gen.js';

type Schemas = components['schemas'];
export type ArgoApiWorkflow = Schemas['io.argoproj.workflow.v1alpha1.Workflow'];
export type ArgoApiNode = Schemas['io.argoproj.workflow.v1alpha1.NodeStatus'];
export type ArgoLogEntry = Schemas['io.argoproj.workflow.v1alpha1.LogEntry'];

export interface ArgoServer {
  /** argo-server's base URL, e.g. https://argo-server.argo:2746 (no trailing slash needed). */
  url: string;
  /** Sent as `Authorization: Bearer <token>` (argo-server's client auth mode). */
  token?: string;
  /** How requests travel when not plain HTTP (an agent's argo-server is reached over its socket). */
  fetch?: (request: Request) => Promise<Response>;
}

export interface LogQuery {
  podName?: string;
  /** Argo's step container is `main`. */
  container?: string;
  follow?: boolean;
  tailLines?: number;
  /** Only lines written from this time on (seconds precision, as argo-server takes it). */
  sinceTime?: Date;
  signal?: AbortSignal;
}

export interface ArtifactStream {
  body: ReadableStream<Uint8Array>;
  size?: number;
  contentType: string;
}

/** An answer argo-server gave that is neither what was asked nor a 404. */
export class ArgoServerError extends Error {
  constructor(
    message: string,
    readonly status: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ArgoServerError';
  }
}

const POD_NAME_FORMAT = 'workflows.argoproj.io/pod-name-format';
const MAX_POD_PREFIX = 253 - 10 - 1;

/** FNV-1a (32 bit) of a string's UTF-8 bytes, as Go's hash/fnv New32a. */
function fnv32a(s: string): number {
  let h = 0x811c9dc5;
  for (const b of Buffer.from(s, 'utf8')) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/**
 * The pod a Pod node ran in, as Argo's util.GeneratePodName names it: the node id with the v1
 * format, else `<workflow>-<template>-<fnv32a(node name)>` (v2, Argo's default since 3.4).
 */
export function podNameOf(workflow: ArgoApiWorkflow, node: ArgoApiNode): string {
  const wfName = workflow.metadata.name ?? '';
  if (workflow.metadata.annotations?.[POD_NAME_FORMAT] === 'v1') return node.id;
  if (node.name === wfName) return wfName;
  const template = node.templateName ?? node.templateRef?.template ?? '';
  let prefix = node.name.includes('.inline') || !template ? wfName : `${wfName}-${template}`;
  if (prefix.length > MAX_POD_PREFIX - 1) prefix = prefix.slice(0, MAX_POD_PREFIX - 1);
  return `${prefix}-${fnv32a(node.name)}`;
}

export function createArgoClient(server: ArgoServer) {
  const client = createClient<paths>({
    baseUrl: server.url.replace(/\/+$/, ''),
    headers: server.token ? { Authorization: `Bearer ${server.token}` } : {},
    ...(server.fetch ? { fetch: server.fetch } : {}),
  });
  const failure = (what: string, response: Response, body?: unknown) =>
    new ArgoServerError(
      `argo-server answered ${response.status} to ${what}${body && typeof body === 'object' && 'message' in body ? `: ${String(body.message)}` : ''}`,
      response.status,
    );

  return {
    /** The workflow (its spec and node tree); null when argo-server does not know it. */
    async workflow(namespace: string, name: string, signal?: AbortSignal): Promise<ArgoApiWorkflow | null> {
      const { data, error, response } = await client.GET('/api/v1/workflows/{namespace}/{name}', {
        params: { path: { namespace, name } },
        ...(signal ? { signal } : {}),
      });
      if (response.status === 404) return null;
      if (!data) throw failure(`GET workflow ${namespace}/${name}`, response, error);
      return data;
    },

    /**
     * A step's log, line by line (without the newline), as argo-server streams it; with `follow`
     * it lasts while the step runs. Null when there is no such workflow or pod.
     */
    async logs(
      namespace: string,
      name: string,
      query: LogQuery = {},
    ): Promise<AsyncIterable<ArgoLogEntry> | null> {
      const { response } = await client.GET('/api/v1/workflows/{namespace}/{name}/log', {
        params: {
          path: { namespace, name },
          query: {
            ...(query.podName ? { podName: query.podName } : {}),
            'logOptions.container': query.container ?? 'main',
            ...(query.follow ? { 'logOptions.follow': true } : {}),
            ...(query.tailLines !== undefined ? { 'logOptions.tailLines': String(query.tailLines) } : {}),
            ...(query.sinceTime
              ? { 'logOptions.sinceTime.seconds': String(Math.floor(query.sinceTime.getTime() / 1000)) }
              : {}),
          },
        },
        parseAs: 'stream',
        ...(query.signal ? { signal: query.signal } : {}),
      });
      if (response.status === 404) return null;
      if (!response.ok || !response.body) throw failure(`GET log of ${namespace}/${name}`, response);
      return entries(response.body);
    },

    /** An output artifact of a node, streamed; null when argo-server has no such file. */
    async artifact(
      namespace: string,
      workflow: string,
      nodeId: string,
      artifactName: string,
      signal?: AbortSignal,
    ): Promise<ArtifactStream | null> {
      const { response } = await client.GET(
        '/artifact-files/{namespace}/{idDiscriminator}/{id}/{nodeId}/{artifactDiscriminator}/{artifactName}',
        {
          params: {
            path: {
              namespace,
              idDiscriminator: 'workflow',
              id: workflow,
              nodeId,
              artifactDiscriminator: 'outputs',
              artifactName,
            },
          },
          parseAs: 'stream',
          ...(signal ? { signal } : {}),
        },
      );
      if (response.status === 404) return null;
      if (!response.ok || !response.body)
        throw failure(`GET artifact ${artifactName} of ${nodeId}`, response);
      const size = Number(response.headers.get('content-length') ?? NaN);
      return {
        body: response.body,
        ...(Number.isFinite(size) ? { size } : {}),
        contentType: response.headers.get('content-type') ?? 'application/octet-stream',
      };
    },
  };
}

export type ArgoClient = ReturnType<typeof createArgoClient>;

/** grpc-gateway's stream: one `{"result": …}` (or `{"error": …}`) JSON object per line. */
async function* entries(body: ReadableStream<Uint8Array>): AsyncIterable<ArgoLogEntry> {
  const decoder = new TextDecoder();
  let rest = '';
  const parse = (line: string): ArgoLogEntry | undefined => {
    if (!line.trim()) return undefined;
    const message = JSON.parse(line) as {
      result?: ArgoLogEntry;
      error?: { message?: string; code?: number };
    };
    if (message.error)
      throw new ArgoServerError(`argo-server log stream: ${message.error.message ?? 'error'}`, 500);
    return message.result;
  };
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    const lines = (rest + decoder.decode(chunk, { stream: true })).split('\n');
    rest = lines.pop()!;
    for (const line of lines) {
      const entry = parse(line);
      if (entry) yield entry;
    }
  }
  const last = parse(rest + decoder.decode());
  if (last) yield last;
}
