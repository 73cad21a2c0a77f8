import { randomBytes } from 'node:crypto';
import type { RequestOptions } from 'node:https';
import { ApiException, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { expect, inject } from 'vitest';

export function kubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(inject('kubeconfig'));
  return kc;
}

export const isKubeLite = () => inject('kubeTarget') === 'kube-lite';

export const uniqueName = (prefix: string) => `${prefix}-${randomBytes(3).toString('hex')}`;

/** A fresh namespace for one test file. */
export async function freshNamespace(kc: KubeConfig, prefix = 'contract'): Promise<string> {
  const name = uniqueName(prefix);
  await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name } } });
  return name;
}

export interface StatusBody {
  kind: string;
  code: number;
  reason: string;
  message: string;
  details?: { causes?: { reason: string; field?: string; message: string }[] };
}

/** Awaits a failing call and returns its metav1.Status after checking code and reason. */
export async function expectStatus(
  call: Promise<unknown>,
  code: number,
  reason?: string,
): Promise<StatusBody> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, `expected a ${code} error`).toBeInstanceOf(ApiException);
  const e = err as ApiException<unknown>;
  expect(e.code).toBe(code);
  const body = (typeof e.body === 'string' ? JSON.parse(e.body) : e.body) as StatusBody;
  expect(body.kind).toBe('Status');
  if (reason) expect(body.reason).toBe(reason);
  return body;
}

export async function eventually<T>(fn: () => Promise<T> | T, timeoutMs = 10_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      return await fn();
    } catch (e) {
      last = e;
      if (Date.now() > deadline) throw last;
      await new Promise((r) => setTimeout(r, everyMs));
    }
  }
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: () => any;
}

/** A request with the kubeconfig's credentials and CA, over http or https. */
export async function rawRequest(
  kc: KubeConfig,
  method: string,
  path: string,
  body?: string | Buffer,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  const server = new URL(kc.getCurrentCluster()!.server);
  const { default: transport } =
    server.protocol === 'https:' ? await import('node:https') : await import('node:http');
  const opts: RequestOptions = {
    method,
    hostname: server.hostname,
    port: server.port,
    path,
    headers: { Accept: 'application/json', ...headers },
  };
  await kc.applyToHTTPSOptions(opts);
  return new Promise((resolve, reject) => {
    const req = transport.request(opts, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
      });
    });
    req.on('error', reject);
    if (body !== undefined) req.end(body);
    else req.end();
  });
}
