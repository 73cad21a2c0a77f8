import { CoreV1Api } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { freshNamespace, isKubeLite, kubeConfig, rawRequest } from '../support/kube.js';

const kc = kubeConfig();
const core = kc.makeApiClient(CoreV1Api);
let namespace: string;
let base: string;

beforeAll(async () => {
  namespace = await freshNamespace(kc, 'bad');
  base = `/api/v1/namespaces/${namespace}/configmaps`;
});

const json = { 'Content-Type': 'application/json' };

describe('bad input gets a Status error and changes nothing', () => {
  it.each([
    ['malformed JSON', '{"apiVersion": "v1", "kind": ', json, 400, 'BadRequest'],
    [
      'malformed YAML',
      'apiVersion: v1\nkind: ConfigMap\nmetadata: [unclosed',
      { 'Content-Type': 'application/yaml' },
      400,
      'BadRequest',
    ],
    [
      'wrong apiVersion',
      JSON.stringify({ apiVersion: 'v2', kind: 'ConfigMap', metadata: { name: 'x' } }),
      json,
      400,
      'BadRequest',
    ],
    [
      'wrong kind',
      JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } }),
      json,
      400,
      'BadRequest',
    ],
    [
      'a name that is not DNS-1123',
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Not_Valid' } }),
      json,
      422,
      'Invalid',
    ],
  ])('%s', async (_label, body, headers, status, reason) => {
    const before = await core.listNamespacedConfigMap({ namespace });
    const res = await rawRequest(kc, 'POST', base, body, headers);
    expect(res.status).toBe(status);
    const s = res.json();
    expect(s.kind).toBe('Status');
    expect(s.reason).toBe(reason);
    expect(s.code).toBe(status);
    const after = await core.listNamespacedConfigMap({ namespace });
    expect(after.items).toHaveLength(before.items.length);
  });

  it('refuses a body over 3 MiB with RequestEntityTooLarge and keeps serving', async () => {
    const big = JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'big' },
      data: { blob: 'x'.repeat(3 * 1024 * 1024 + 10) },
    });
    const res = await rawRequest(kc, 'POST', base, big, json);
    expect(res.status).toBe(413);
    expect(res.json().reason).toBe('RequestEntityTooLarge');
    const ok = await core.listNamespacedConfigMap({ namespace });
    expect(ok.items.some((i) => i.metadata?.name === 'big')).toBe(false);
  });

  it('answers NotFound for an unknown resource', async () => {
    const res = await rawRequest(kc, 'GET', `/apis/nothing.sandflow.io/v1/namespaces/${namespace}/things`);
    expect(res.status).toBe(404);
    if (isKubeLite()) expect(res.json().reason).toBe('NotFound');
  });

  it('refuses a request without the bearer token with 401', async () => {
    const server = new URL(kc.getCurrentCluster()!.server);
    if (server.protocol !== 'http:') return; // a real server also accepts client certificates; kube-lite only tokens
    const res = await fetch(`${server.origin}/api/v1/namespaces`);
    expect(res.status).toBe(401);
    const wrong = await fetch(`${server.origin}/api/v1/namespaces`, {
      headers: { Authorization: 'Bearer wrong' },
    });
    expect(wrong.status).toBe(401);
  });

  it('refuses unknown fields under fieldValidation=Strict', async () => {
    const res = await rawRequest(
      kc,
      'POST',
      `${base}?fieldValidation=Strict`,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'strict' },
        data: {},
        bogus: 1,
      }),
      json,
    );
    expect(res.status).toBe(400);
    expect(res.json().message).toContain('unknown field "bogus"');
  });
});

describe('verbs a resource does not offer', () => {
  it('answers MethodNotAllowed to POST on a named object', async () => {
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'exists' }, data: {} } });
    const res = await rawRequest(
      kc,
      'POST',
      `${base}/exists`,
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'exists' } }),
      json,
    );
    expect(res.status).toBe(405);
    expect(res.json().reason).toBe('MethodNotAllowed');
  });
});
