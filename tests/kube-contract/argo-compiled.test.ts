// What the compiler emits is accepted by Argo's own CRDs (schemas and CEL rules, installed by the
// global setup from embedded/argo-crds): every sample (the one-off run's Workflow, the periodic
// session's CronWorkflow) and ≥ 1,000 random graphs of the compiler's property generator, compiled and
// created with server-side dry run on kube-lite and, under `npm run test:envtest`, a real kube-apiserver.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { compileRun, compileSession } from '@sandflow/operator';
import { dagArb, loadSamples, sandbox, session, workflow } from '@sandflow/operator/testing';
import { eventually, freshNamespace, kubeConfig, rawRequest } from '../support/kube.js';

const kc = kubeConfig();
const GRAPHS = Number(process.env.ARGO_COMPILED_GRAPHS ?? 1000);
let namespace: string;

const dryRun = (plural: 'workflows' | 'cronworkflows', body: object) =>
  rawRequest(
    kc,
    'POST',
    `/apis/argoproj.io/v1alpha1/namespaces/${namespace}/${plural}?dryRun=All`,
    JSON.stringify({ ...body, metadata: { ...(body as { metadata?: object }).metadata, namespace } }),
    { 'Content-Type': 'application/json' },
  );

/** The number of CEL rules the installed CRD carries (0 with the minimal CRDs). */
async function celRules(name: string): Promise<number> {
  const res = await rawRequest(kc, 'GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
  expect(res.status, res.text).toBe(200);
  return (res.text.match(/"x-kubernetes-validations"/g) ?? []).length;
}

beforeAll(async () => {
  namespace = await freshNamespace(kc, 'argo-compiled');
  for (const plural of ['workflows', 'cronworkflows'])
    await eventually(
      async () => {
        const res = await rawRequest(
          kc,
          'GET',
          `/apis/argoproj.io/v1alpha1/namespaces/${namespace}/${plural}`,
        );
        expect(res.status, `${plural}: ${res.text}`).toBe(200);
      },
      30_000,
      200,
    );
}, 60_000);

describe("compiled objects against Argo's CRDs", () => {
  it('the rules are in force: continueOn beside depends, as the compiler once emitted, is refused', async () => {
    // Argo's full Workflow CRD (embedded/argo-crds) carries 32 rules; fewer means a stripped CRD.
    expect(await celRules('workflows.argoproj.io')).toBeGreaterThanOrEqual(32);
    const res = await dryRun('workflows', {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Workflow',
      metadata: { name: 'old-style' },
      spec: {
        entrypoint: 'main',
        templates: [
          {
            name: 'main',
            dag: {
              tasks: [
                { name: 'a', template: 'step' },
                { name: 'b', template: 'step', depends: 'a.Succeeded', continueOn: { failed: true } },
              ],
            },
          },
          { name: 'step', container: { image: 'busybox', command: ['true'] } },
        ],
      },
    });
    expect(res.status, res.text).toBe(422);
    expect(res.text).toContain("cannot use 'continueOn' when using 'depends'");
  });

  it('every sample: the one-off run as a Workflow, the periodic session as a CronWorkflow', async () => {
    const { sandboxes, workflow: wf, sessions } = loadSamples();
    const executor = { id: 'alice', groups: ['research'] };
    let crons = 0;
    for (const sess of sessions) {
      const run = compileRun({
        workflow: wf,
        session: sess,
        sandboxes,
        run: { name: 'sample-run' },
        executor,
      });
      const res = await dryRun('workflows', run);
      expect(res.status, `${sess.spec.name}: ${res.text}`).toBe(201);
      const { cronWorkflows } = compileSession({ workflow: wf, session: sess, sandboxes, executor });
      for (const cron of cronWorkflows) {
        const r = await dryRun('cronworkflows', cron);
        expect(r.status, `${sess.spec.name} CronWorkflow: ${r.text}`).toBe(201);
        crons++;
      }
    }
    expect(crons).toBeGreaterThan(0);
  });

  it(`${GRAPHS} random graphs of the property generator`, async () => {
    const samples = fc.sample(dagArb, { numRuns: GRAPHS, seed: 20261123 });
    const refused: string[] = [];
    // a few requests in flight: the server is shared with the other suites
    for (let i = 0; i < samples.length; i += 8) {
      await Promise.all(
        samples.slice(i, i + 8).map(async ({ graph, cof }, j) => {
          const argo = compileRun({
            workflow: workflow({
              ...graph,
              nodes: graph.nodes!.map((nd) => ({ ...nd, continueOnFail: cof.includes(nd.id) })),
            }),
            session: session(),
            sandboxes: graph.nodes!.map((nd) => sandbox(nd.name)),
            run: { name: `graph-${i + j}` },
          });
          const res = await dryRun('workflows', argo);
          if (res.status !== 201) refused.push(`${JSON.stringify(graph)} → ${res.status} ${res.text}`);
        }),
      );
    }
    expect(refused.slice(0, 3)).toEqual([]);
  }, 600_000);
});
