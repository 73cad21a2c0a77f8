import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Run } from '@sandflow/crds';
import { listRuns, ROOT, startEnv, until, type Env } from '@sandflow/embedded/testing';

let env: Env;
beforeAll(async () => {
  env = await startEnv();
});
afterAll(async () => env?.close());

const NS = 'sf-demo-research';
const ONE_OFF = '9a7c5e1d-3b2f-4d8a-b6e4-1c0f2a3d4e22';

describe('config/samples applied with kubectl', () => {
  it('the one-off session yields a Run that completes: switch success branch, split/merge over the lines, outputs and logs', async () => {
    await env.kubectl('apply', '-f', path.join(ROOT, 'config/samples/namespaces.yaml'));
    await env.kubectl('apply', '-f', path.join(ROOT, 'config/samples/'));
    const run = await until(async () => {
      const runs = (await listRuns(env, NS)).filter((r) => r.spec.session === ONE_OFF);
      const r = runs[0];
      return r && ['COMPLETED', 'ERROR', 'STOPPED'].includes(r.status?.phase ?? '') ? r : undefined;
    }, 45_000);
    const byName = Object.fromEntries((run.status!.sandboxStatuses ?? []).map((s) => [s.name, s]));
    expect(run.status!.phase, JSON.stringify(run.status, null, 1)).toBe('COMPLETED');
    expect(byName.ingest!.status).toBe('COMPLETED');
    expect(byName.process!.status).toBe('COMPLETED');
    expect(byName.process!.subSandboxes!.map((s) => s.status)).toEqual([
      'COMPLETED',
      'COMPLETED',
      'COMPLETED',
    ]);
    expect(byName.merge!.status).toBe('COMPLETED');
    expect(byName.publish!.status).toBe('COMPLETED');
    expect(byName.alert!.status).toBe('SKIPPING');
    expect(byName.cleanup!.status).toBe('COMPLETED');
    expect(run.status!.startTime).toBeTruthy();
    expect(run.status!.stopTime).toBeTruthy();
    expect(run.status!.history!.map((h) => h.action)).toEqual(
      expect.arrayContaining(['created', 'INIT', 'COMPLETED']),
    );
    expect(run.status!.clusterManager).toBe('platform');
    // The merged report has one upper-cased line per item, in order.
    const report = run.status!.outputs!.find((o) => o.sandbox === 'merge' && o.name === 'report.txt')!;
    expect(fs.readFileSync(path.join(env.dataDir, 'runs', report.path!), 'utf8')).toBe(
      'SENSOR-A 12.5\nSENSOR-B 13.1\nSENSOR-C 11.8\n',
    );
    // Billing: one record per finished step instance (ingest, 3 × process, merge, publish, cleanup).
    expect(run.status!.billing).toHaveLength(7);
    expect(run.status!.billing!.every((b) => b.machine!.cpu === 2000 && b.amount! >= 0)).toBe(true);
    // Logs: the Argo node of each step points at its log file.
    const wf = (await env.api.getNamespacedCustomObject({
      group: 'argoproj.io',
      version: 'v1alpha1',
      plural: 'workflows',
      namespace: NS,
      name: run.status!.argoWorkflow!,
    })) as {
      metadata: { ownerReferences: { kind: string; uid: string }[] };
      status: {
        nodes: Record<
          string,
          { displayName: string; outputs?: { artifacts?: { name: string; s3?: { key: string } }[] } }
        >;
      };
    };
    expect(wf.metadata.ownerReferences[0]).toMatchObject({ kind: 'Run', uid: run.metadata.uid });
    const publish = Object.values(wf.status.nodes).find((n) => n.displayName === 'sb-publish')!;
    const log = publish.outputs!.artifacts!.find((a) => a.name === 'main-logs')!.s3!.key;
    expect(fs.readFileSync(path.join(env.dataDir, 'runs', log), 'utf8')).toBe('published 3 lines\n');
    // …and the Run says where it is.
    const publishStatus = run.status!.sandboxStatuses!.find((x) => x.name === 'publish')!;
    expect(publishStatus.log).toBe(log);
    // The periodic session became a CronWorkflow.
    const cwfs = (await env.api.listNamespacedCustomObject({
      group: 'argoproj.io',
      version: 'v1alpha1',
      plural: 'cronworkflows',
      namespace: NS,
    })) as { items: unknown[] };
    expect(cwfs.items).toHaveLength(1);
    // Applying the samples again creates no second run.
    await env.kubectl('apply', '-f', path.join(ROOT, 'config/samples/'));
    await new Promise((r) => setTimeout(r, 1000));
    expect((await listRuns(env, NS)).filter((r: Run) => r.spec.session === ONE_OFF)).toHaveLength(1);
  });

  it('a Session applied before its Workflow is Invalid (WorkflowNotFound) until the Workflow arrives, then Ready', async () => {
    const group = { group: 'sandflow.io', version: 'v1alpha1' };
    const sample = (await env.api.getNamespacedCustomObject({
      ...group,
      plural: 'sessions',
      namespace: NS,
      name: ONE_OFF,
    })) as {
      metadata: { labels?: Record<string, string>; annotations?: Record<string, string> };
      spec: Record<string, unknown>;
    };
    const source = (await env.api.getNamespacedCustomObject({
      ...group,
      plural: 'workflows',
      namespace: String(sample.spec.workflowNamespace),
      name: String(sample.spec.workflow),
    })) as { metadata: { labels?: Record<string, string> }; spec: Record<string, unknown> };
    const late = 'c3f1a2b4-0a0b-4c0d-8e0f-000000000001';
    const name = 'e5d4c3b2-1a09-4f8e-8d7c-6b5a4f3e2d1c';
    // Suspended: the point is the Session's verdict, not another run.
    await env.api.createNamespacedCustomObject({
      ...group,
      plural: 'sessions',
      namespace: NS,
      body: {
        apiVersion: 'sandflow.io/v1alpha1',
        kind: 'Session',
        metadata: { name, labels: sample.metadata.labels, annotations: sample.metadata.annotations },
        spec: { ...sample.spec, name: 'late workflow', workflow: late, suspend: true },
      },
    });
    type Status = {
      status?: { phase?: string; conditions?: { type: string; status: string; reason?: string }[] };
    };
    const ready = async () => {
      const s = (await env.api.getNamespacedCustomObject({
        ...group,
        plural: 'sessions',
        namespace: NS,
        name,
      })) as Status;
      return { phase: s.status?.phase, ready: s.status?.conditions?.find((c) => c.type === 'Ready') };
    };
    const invalid = await until(async () => {
      const r = await ready();
      return r.ready ? r : undefined;
    }, 20_000);
    expect(invalid).toMatchObject({
      phase: 'Invalid',
      ready: { status: 'False', reason: 'WorkflowNotFound' },
    });

    await env.api.createNamespacedCustomObject({
      ...group,
      plural: 'workflows',
      namespace: String(sample.spec.workflowNamespace),
      body: {
        apiVersion: 'sandflow.io/v1alpha1',
        kind: 'Workflow',
        metadata: { name: late, labels: source.metadata.labels },
        spec: source.spec,
      },
    });
    const healed = await until(async () => {
      const r = await ready();
      return r.ready?.status === 'True' ? r : undefined;
    }, 20_000);
    expect(healed.phase).toBe('Suspended');
  });
});
