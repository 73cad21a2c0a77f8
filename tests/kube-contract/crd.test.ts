import {
  ApiextensionsV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventually,
  expectStatus,
  freshNamespace,
  kubeConfig,
  rawRequest,
  uniqueName,
} from '../support/kube.js';

const kc = kubeConfig();
const ext = kc.makeApiClient(ApiextensionsV1Api);
const objects = kc.makeApiClient(CustomObjectsApi);
const group = 'contract.sandflow.io';
const version = 'v1';
const plural = 'widgets';
let namespace: string;

const widgetCrd: V1CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.${group}` },
  spec: {
    group,
    scope: 'Namespaced',
    names: { plural, singular: 'widget', kind: 'Widget', shortNames: ['wd'] },
    versions: [
      {
        name: version,
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                required: ['size'],
                properties: {
                  size: { type: 'integer', minimum: 1, maximum: 10 },
                  color: { type: 'string', _enum: ['red', 'blue'], _default: 'red' },
                  name: { type: 'string', pattern: '^[A-Za-z0-9_]+$' },
                  free: { type: 'object', x_kubernetes_preserve_unknown_fields: true },
                },
              },
              status: { type: 'object', properties: { phase: { type: 'string' } } },
            },
          },
        },
      },
    ],
  },
};

const widget = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: `${group}/${version}`,
  kind: 'Widget',
  metadata: { name },
  spec,
});
const create = (body: unknown) =>
  objects.createNamespacedCustomObject({ group, version, namespace, plural, body }) as Promise<
    Record<string, any>
  >;
const get = (name: string) =>
  objects.getNamespacedCustomObject({ group, version, namespace, plural, name }) as Promise<
    Record<string, any>
  >;

beforeAll(async () => {
  namespace = await freshNamespace(kc, 'crd');
  await ext.createCustomResourceDefinition({ body: widgetCrd }).catch(() => undefined);
  await eventually(
    async () => {
      const crd = await ext.readCustomResourceDefinition({ name: `${plural}.${group}` });
      expect(crd.status?.conditions?.find((c) => c.type === 'Established')?.status).toBe('True');
      await objects.listNamespacedCustomObject({ group, version, namespace, plural });
    },
    20_000,
    200,
  );
});

afterAll(async () => {
  await ext.deleteCustomResourceDefinition({ name: `${plural}.${group}` }).catch(() => undefined);
});

describe('custom resources', () => {
  it('appear in discovery as soon as the CRD is established', async () => {
    const res = await fetchJson(`/apis/${group}/${version}`);
    expect(res.resources.map((r: { name: string }) => r.name).sort()).toEqual(['widgets', 'widgets/status']);
    expect(res.resources.find((r: { name: string }) => r.name === 'widgets').shortNames).toEqual(['wd']);
  });

  it('applies defaults and prunes unknown fields (but keeps preserved ones)', async () => {
    const created = await create(
      widget('defaults', { size: 3, bogus: true, free: { anything: { goes: 1 } } }),
    );
    expect(created.spec).toEqual({ size: 3, color: 'red', free: { anything: { goes: 1 } } });
    expect(created.metadata.generation).toBe(1);
  });

  it('rejects invalid objects with 422 naming each bad field', async () => {
    const s = await expectStatus(
      create(widget('bad', { size: 0, color: 'green', name: 'has space' })),
      422,
      'Invalid',
    );
    const fields = s.details!.causes!.map((c) => c.field).sort();
    expect(fields).toEqual(['spec.color', 'spec.name', 'spec.size']);
    expect(s.message).toContain('Widget.contract.sandflow.io "bad" is invalid');
    const missing = await expectStatus(create(widget('bad2', {})), 422, 'Invalid');
    expect(missing.details!.causes).toEqual([
      expect.objectContaining({ field: 'spec.size', reason: 'FieldValueRequired' }),
    ]);
    await expectStatus(get('bad'), 404, 'NotFound');
  });

  it('ignores status on the main resource and spec on /status', async () => {
    const created = await create({ ...widget('status', { size: 2 }), status: { phase: 'Ignored' } });
    expect(created.status).toBeUndefined();
    const withStatus = (await objects.replaceNamespacedCustomObjectStatus({
      group,
      version,
      namespace,
      plural,
      name: 'status',
      body: { ...created, spec: { size: 9 }, status: { phase: 'Ready' } },
    })) as Record<string, any>;
    expect(withStatus.status).toEqual({ phase: 'Ready' });
    expect(withStatus.spec.size).toBe(2);
    const mainUpdate = (await objects.replaceNamespacedCustomObject({
      group,
      version,
      namespace,
      plural,
      name: 'status',
      body: { ...withStatus, spec: { size: 4, color: 'blue' }, status: { phase: 'Overwritten' } },
    })) as Record<string, any>;
    expect(mainUpdate.status).toEqual({ phase: 'Ready' });
    expect(mainUpdate.spec.size).toBe(4);
  });

  it('bumps generation on spec changes only', async () => {
    const created = await create(widget('gen', { size: 1 }));
    const labelled = (await objects.patchNamespacedCustomObject(
      { group, version, namespace, plural, name: 'gen', body: { metadata: { labels: { a: 'b' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    )) as Record<string, any>;
    expect(labelled.metadata.generation).toBe(1);
    const resized = (await objects.patchNamespacedCustomObject(
      { group, version, namespace, plural, name: 'gen', body: { spec: { size: 5 } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    )) as Record<string, any>;
    expect(resized.metadata.generation).toBe(2);
    expect(created.metadata.uid).toBe(resized.metadata.uid);
  });

  it('refuses strategic merge patches on custom resources', async () => {
    await create(widget('smp', { size: 1 }));
    await expectStatus(
      objects.patchNamespacedCustomObject(
        { group, version, namespace, plural, name: 'smp', body: { spec: { size: 2 } } },
        setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
      ),
      415,
      'UnsupportedMediaType',
    );
  });

  it('server-side apply creates, then reports conflicts with another manager unless forced', async () => {
    const name = uniqueName('ssa');
    const apply = (spec: Record<string, unknown>, fieldManager: string, force = false) =>
      objects.patchNamespacedCustomObject(
        { group, version, namespace, plural, name, body: widget(name, spec), fieldManager, force },
        setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
      ) as Promise<Record<string, any>>;
    const first = await apply({ size: 3 }, 'alice');
    expect(first.spec.size).toBe(3);
    expect(first.metadata.managedFields.map((m: { manager: string }) => m.manager)).toContain('alice');
    const s = await expectStatus(apply({ size: 4 }, 'bob'), 409, 'Conflict');
    expect(s.message).toContain('alice');
    const forced = await apply({ size: 4 }, 'bob', true);
    expect(forced.spec.size).toBe(4);
  });

  it('removes the resource from discovery when the CRD is deleted', async () => {
    const tmpGroup = 'gone.sandflow.io';
    const crd: V1CustomResourceDefinition = {
      ...widgetCrd,
      metadata: { name: `gadgets.${tmpGroup}` },
      spec: { ...widgetCrd.spec, group: tmpGroup, names: { plural: 'gadgets', kind: 'Gadget' } },
    };
    await ext.createCustomResourceDefinition({ body: crd });
    await eventually(() => fetchJson(`/apis/${tmpGroup}/${version}`), 20_000, 200);
    await ext.deleteCustomResourceDefinition({ name: `gadgets.${tmpGroup}` });
    await eventually(
      async () => {
        const groups = await fetchJson('/apis');
        expect(groups.groups.map((g: { name: string }) => g.name)).not.toContain(tmpGroup);
      },
      30_000,
      200,
    );
  });
});

async function fetchJson(path: string): Promise<any> {
  const res = await rawRequest(kc, 'GET', path);
  if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
  return res.json();
}
