// Argo Workflows' full Workflow and CronWorkflow CRDs (vendored in embedded/argo-crds) and its CEL rules: what a
// real cluster with Argo refuses, kube-lite refuses with the same Status.
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { installCrds, readCrds } from '@sandflow/embedded/testing';
import { eventually, freshNamespace, kubeConfig, rawRequest } from '../support/kube.js';

const kc = kubeConfig();
const ARGO_CRDS = path.resolve(import.meta.dirname, '../../embedded/argo-crds');
let namespace: string;

const workflow = (tasks: Record<string, unknown>[], extra: Record<string, unknown> = {}) => ({
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'Workflow',
  metadata: { generateName: 'rules-' },
  spec: {
    entrypoint: 'main',
    templates: [
      { name: 'main', dag: { tasks } },
      { name: 'step', container: { image: 'busybox', command: ['true'] } },
    ],
    ...extra,
  },
});

const dryRun = (body: unknown) =>
  rawRequest(
    kc,
    'POST',
    `/apis/argoproj.io/v1alpha1/namespaces/${namespace}/workflows?dryRun=All`,
    JSON.stringify(body),
    { 'Content-Type': 'application/json' },
  );

beforeAll(async () => {
  namespace = await freshNamespace(kc, 'argo-rules');
  await installCrds(kc, readCrds(ARGO_CRDS));
  await eventually(
    async () => {
      for (const plural of ['workflows', 'cronworkflows']) {
        const res = await rawRequest(
          kc,
          'GET',
          `/apis/argoproj.io/v1alpha1/namespaces/${namespace}/${plural}`,
        );
        expect(res.status).toBe(200);
      }
    },
    30_000,
    200,
  );
}, 120_000);

describe("Argo's Workflow CRD rules", () => {
  it('accept a DAG whose continue-on-fail is written in depends', async () => {
    const res = await dryRun(
      workflow([
        { name: 'a', template: 'step' },
        { name: 'b', template: 'step', depends: 'a.Succeeded || a.Failed' },
      ]),
    );
    expect(res.status, res.text).toBe(201);
  });

  it("refuse continueOn together with depends, at the task's path", async () => {
    const res = await dryRun(
      workflow([
        { name: 'b', template: 'step', depends: 'a', continueOn: { failed: true } },
        { name: 'a', template: 'step' },
      ]),
    );
    expect(res.status, res.text).toBe(422);
    const status = res.json();
    expect(status.reason).toBe('Invalid');
    expect(status.details.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'spec.templates[0].dag.tasks[0]',
        message: `Invalid value: "object": cannot use 'continueOn' when using 'depends'`,
      },
    ]);
    expect(status.message).toMatch(
      /^Workflow\.argoproj\.io "rules-\w*" is invalid: spec\.templates\[0\]\.dag\.tasks\[0\]: Invalid value: "object": cannot use 'continueOn' when using 'depends'$/,
    );
  });

  it('hold in a CronWorkflow too, under spec.workflowSpec', async () => {
    const { spec } = workflow([{ name: 'a', template: 'step', depends: 'x', continueOn: { failed: true } }]);
    const res = await rawRequest(
      kc,
      'POST',
      `/apis/argoproj.io/v1alpha1/namespaces/${namespace}/cronworkflows?dryRun=All`,
      JSON.stringify({
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'CronWorkflow',
        metadata: { name: 'nightly' },
        spec: { schedules: ['0 1 * * *'], workflowSpec: spec },
      }),
      { 'Content-Type': 'application/json' },
    );
    expect(res.status, res.text).toBe(422);
    expect(res.json().details.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'spec.workflowSpec.templates[0].dag.tasks[0]',
        message: `Invalid value: "object": cannot use 'continueOn' when using 'depends'`,
      },
    ]);
  });

  it('refuse depends together with dependencies, and two template types', async () => {
    const res = await dryRun({
      ...workflow([
        { name: 'a', template: 'step' },
        { name: 'b', template: 'step', depends: 'a', dependencies: ['a'] },
      ]),
    });
    expect(res.status, res.text).toBe(422);
    expect(res.json().details.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'spec.templates[0].dag.tasks[1]',
        message: `Invalid value: "object": cannot use both 'depends' and 'dependencies'`,
      },
    ]);
    const twoTypes = workflow([{ name: 'a', template: 'step' }]);
    (twoTypes.spec.templates[1] as Record<string, unknown>).script = { image: 'busybox', source: 'true' };
    const res2 = await dryRun(twoTypes);
    expect(res2.status, res2.text).toBe(422);
    expect(res2.json().details.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'spec.templates',
        message: 'Invalid value: "array": template must have at most one template type',
      },
    ]);
  });
});

describe("Argo's Workflow CRD has no status subresource", () => {
  const workflowsPath = () => `/apis/argoproj.io/v1alpha1/namespaces/${namespace}/workflows`;
  const mergePatch = (name: string, body: unknown) =>
    rawRequest(kc, 'PATCH', `${workflowsPath()}/${name}`, JSON.stringify(body), {
      'Content-Type': 'application/merge-patch+json',
    });

  it('counts a status change as a new generation, a label change not', async () => {
    const created = await rawRequest(
      kc,
      'POST',
      workflowsPath(),
      JSON.stringify(workflow([{ name: 'a', template: 'step' }])),
      {
        'Content-Type': 'application/json',
      },
    );
    expect(created.status, created.text).toBe(201);
    const name = created.json().metadata.name as string;
    expect(created.json().metadata.generation).toBe(1);

    const labelled = await mergePatch(name, { metadata: { labels: { seen: 'yes' } } });
    expect(labelled.json().metadata.generation).toBe(1);
    const withStatus = await mergePatch(name, { status: { phase: 'Running' } });
    expect(withStatus.status, withStatus.text).toBe(200);
    expect(withStatus.json().status.phase).toBe('Running');
    expect(withStatus.json().metadata.generation).toBe(2);
    const statusPath = await mergePatch(`${name}/status`, { status: { phase: 'Failed' } });
    expect(statusPath.status).toBe(404);
  });
});
