// The local runner on the bwrap runtime without a folder of unpacked images: a step's image is
// pulled from its registry (Debian's docker-registry holding the busybox-static image) into the
// layout at <dataDir>/images, and later steps run from there even with the registry gone.
import fs from 'node:fs';
import path from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import {
  BUSYBOX_REFERENCE,
  LayoutStore,
  RegistryStore,
  buildBusyboxImage,
  copyImage,
  findBusyboxStatic,
} from '@sandflow/images';
import { registryMissing, startRegistry, type TestRegistry } from '@sandflow/images/testing';
import { Kube } from '@sandflow/kube';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeId, type ArgoWorkflow } from './argo.js';
import { findBwrap } from './bwrap.js';
import { startRunner, type Runner } from './index.js';
import { startTestCluster, submitWorkflow } from './testing.js';

const missing = [
  !findBwrap() && 'bwrap (apt-get install bubblewrap)',
  !findBusyboxStatic() && 'busybox-static',
  registryMissing(),
].filter(Boolean);
if (missing.length > 0) console.warn(`bwrap pull tests skipped: ${missing.join(' and ')} not installed`);

const ns = 'bwrap-pull';
let cluster: Awaited<ReturnType<typeof startTestCluster>>;
let registry: TestRegistry;
let runner: Runner;
let argo: Kube;
let image: string;

const runStep = (name: string, stepImage: string, script: string) =>
  submitWorkflow(
    argo,
    ns,
    name,
    {
      entrypoint: 'main',
      templates: [
        { name: 'main', dag: { tasks: [{ name: 'x', template: 'x' }] } },
        {
          name: 'x',
          container: {
            name: 'main',
            image: stepImage,
            command: ['sh', '-c', script],
            resources: { requests: { cpu: '100m', memory: '16Mi' } },
          },
        },
      ],
    },
    30_000,
  );

function stepLog(wf: ArgoWorkflow): string {
  const name = wf.metadata!.name!;
  const node = wf.status!.nodes![nodeId(name, `${name}.x`)]!;
  const key = node.outputs!.artifacts!.find((x) => x.name === 'main-logs')!.s3!.key!;
  return fs.readFileSync(path.join(cluster.dataDir, 'runs', key), 'utf8');
}

describe.skipIf(missing.length > 0)('local runner on the bwrap runtime pulling images', () => {
  beforeAll(async () => {
    cluster = await startTestCluster();
    argo = new Kube(cluster.kc);
    await cluster.kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: ns } } });
    registry = await startRegistry();
    const built = await buildBusyboxImage(path.join(cluster.dataDir, 'hack-images'));
    const [repository, tag] = BUSYBOX_REFERENCE.split(':') as [string, string];
    await copyImage({
      from: new LayoutStore(built.oci),
      fromRepository: repository,
      reference: tag,
      to: new RegistryStore({ host: registry.host }),
      toRepository: repository,
      tag,
    });
    image = `${registry.host}/${BUSYBOX_REFERENCE}`;
    runner = await startRunner({
      kc: cluster.kc,
      dataDir: cluster.dataDir,
      runtimeKind: 'bwrap',
      gracePeriodSeconds: 1,
    });
  }, 60_000);
  afterAll(async () => {
    await runner?.stop();
    await registry?.stop();
    await cluster?.close();
  });

  it('pulls the image into the layout and runs the step in it', async () => {
    const wf = await runStep('pulled', image, '. /etc/os-release && echo "$ID"');
    expect(runner.runtime.name).toBe('bwrap');
    expect(wf.status?.phase).toBe('Succeeded');
    expect(stepLog(wf)).toBe('sandflow-busybox\n');
    const layout = new LayoutStore(path.join(cluster.dataDir, 'images'));
    expect(await layout.listTags(`${registry.host}/sandflow/busybox`)).toEqual(['latest']);
  });

  it('runs the next step from the layout with the registry gone', async () => {
    await registry.stop();
    const wf = await runStep('cached', image, 'cat /etc/os-release');
    expect(wf.status?.phase).toBe('Succeeded');
    expect(stepLog(wf)).toMatch(/^ID=sandflow-busybox$/m);
  });

  it('fails a step whose tag is missing, naming the image and the cause', async () => {
    const wf = await runStep('no-tag', image.replace(/:latest$/, ':nope'), 'true');
    expect(wf.status?.phase).not.toBe('Succeeded');
    expect(JSON.stringify(wf.status?.nodes)).toMatch(/sandflow\/busybox:nope.*failed: /);
  });
});
