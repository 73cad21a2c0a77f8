// config/samples run for real on the bwrap runtime, inside the images hack/images builds (busybox-static
// and, where mmdebstrap is installed, Debian minbase with python3): each image is pushed to Debian's
// docker-registry behind htpasswd auth, the samples' sandboxes are pointed at it (their own refs name
// registries these machines cannot reach) and the run's credentials come from a dockerconfigjson
// Secret in the organization namespace. A sandbox naming an image the registry lacks ends the run in
// ERROR with the image and the cause on its step, and the platform keeps serving.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { CoreV1Api, type V1Namespace } from '@kubernetes/client-node';
import type { Run, Sandbox, Session, Workflow } from '@sandflow/crds';
import { listRuns, ROOT, startEnv, until, type Env } from '@sandflow/embedded/testing';
import { findBwrap } from '@sandflow/embedded/runner';
import {
  BUSYBOX_REFERENCE,
  LayoutStore,
  RegistryStore,
  buildBusyboxImage,
  copyImage,
  findBusyboxStatic,
} from '@sandflow/images';
import { registryMissing, startRegistry, type TestRegistry } from '@sandflow/images/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

const run = promisify(execFile);
const hasMmdebstrap = fs.existsSync('/usr/bin/mmdebstrap');
const missing = [
  !findBwrap() && 'bwrap (apt-get install bubblewrap)',
  !findBusyboxStatic() && 'busybox-static',
  registryMissing({ auth: true }),
].filter(Boolean);
if (missing.length > 0)
  console.warn(`samples-in-images tests skipped: ${missing.join(' and ')} not installed`);
if (!hasMmdebstrap) console.warn('samples in the Debian python3 image skipped: mmdebstrap not installed');

const NS = 'sf-demo-research';
const ORG_NS = 'sf-demo';
const ONE_OFF = '9a7c5e1d-3b2f-4d8a-b6e4-1c0f2a3d4e22';
const USER = { name: 'demo-puller', password: 'Registry-Passw0rd' };
const RUN_AS = { uid: 4242, gid: 4343 };

interface BuiltImage {
  oci: string;
  repository: string;
  tag: string;
}

let registry: TestRegistry;
let tmp: string;
const images: Record<string, BuiltImage> = {};

const samples = () =>
  ['namespaces.yaml', 'sandboxes.yaml', 'workflow.yaml', 'sessions.yaml'].flatMap((f) =>
    parseAllDocuments(fs.readFileSync(path.join(ROOT, 'config/samples', f), 'utf8')).map(
      (d) => d.toJS() as { kind: string; metadata: { name: string; namespace?: string } },
    ),
  );

async function push(image: BuiltImage) {
  await copyImage({
    from: new LayoutStore(image.oci),
    fromRepository: image.repository,
    reference: image.tag,
    to: new RegistryStore({
      host: registry.host,
      credentials: { username: USER.name, password: USER.password },
    }),
    toRepository: image.repository,
    tag: image.tag,
  });
}

beforeAll(async () => {
  if (missing.length > 0) return;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-samples-images-'));
  registry = await startRegistry({ users: { [USER.name]: USER.password } });
  const busybox = await buildBusyboxImage(path.join(tmp, 'busybox'));
  images.busybox = { oci: busybox.oci, repository: BUSYBOX_REFERENCE.split(':')[0]!, tag: 'latest' };
  if (hasMmdebstrap) {
    // Built once per machine (cached under .cache/images); the first build takes a minute or two.
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'hack/images/debian-python.ts'], {
      cwd: ROOT,
      maxBuffer: 1 << 20,
    });
    const built = JSON.parse(stdout.trim().split('\n').pop()!) as { oci: string; reference: string };
    const [repository, tag] = built.reference.split(':') as [string, string];
    images['debian-python'] = { oci: built.oci, repository, tag };
  }
  for (const image of Object.values(images)) await push(image);
}, 600_000);

afterAll(async () => {
  await registry?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** The samples with every sandbox in `image` (pulled from the test registry), the one-off session running as RUN_AS. */
async function applySamples(env: Env, image: string, probe: string) {
  const core = env.kc.makeApiClient(CoreV1Api);
  for (const doc of samples()) {
    if (doc.kind === 'Namespace') await core.createNamespace({ body: doc as V1Namespace });
  }
  const auth = Buffer.from(`${USER.name}:${USER.password}`).toString('base64');
  await core.createNamespacedSecret({
    namespace: ORG_NS,
    body: {
      metadata: { name: 'organization-registry' },
      type: 'kubernetes.io/dockerconfigjson',
      stringData: { '.dockerconfigjson': JSON.stringify({ auths: { [registry.host]: { auth } } }) },
    },
  });
  const create = (plural: string, body: { metadata: { namespace?: string } }) =>
    env.api.createNamespacedCustomObject({
      group: 'sandflow.io',
      version: 'v1alpha1',
      plural,
      namespace: body.metadata.namespace!,
      body,
    });
  for (const doc of samples()) {
    if (doc.kind === 'Sandbox') {
      const sb = doc as unknown as Sandbox;
      sb.spec.image = { ref: image };
      sb.spec.architecture = process.arch === 'arm64' ? 'arm' : 'amd64';
      if (sb.spec.name === 'ingest') sb.spec.entrypoint = `${probe} && ${sb.spec.entrypoint}`;
      await create('sandboxes', sb);
    }
    if (doc.kind === 'Workflow') await create('workflows', doc as unknown as Workflow);
    if (doc.kind === 'Session' && doc.metadata.name === ONE_OFF) {
      const session = doc as unknown as Session;
      session.metadata.annotations = {
        'sandflow.io/run-as-user': String(RUN_AS.uid),
        'sandflow.io/run-as-group': String(RUN_AS.gid),
      };
      await create('sessions', session);
    }
  }
}

const finishedRun = (env: Env) =>
  until(async () => {
    const r = (await listRuns(env, NS)).find((x: Run) => x.spec.session === ONE_OFF);
    return r && ['COMPLETED', 'ERROR', 'STOPPED'].includes(r.status?.phase ?? '') ? r : undefined;
  }, 300_000);

const readLog = (env: Env, key: string) => fs.readFileSync(path.join(env.dataDir, 'runs', key), 'utf8');

const startBwrapEnv = () =>
  startEnv({
    runner: { runtimeKind: 'bwrap' },
    operator: { compiler: { helperImage: `${registry.host}/${images.busybox!.repository}:latest` } },
  });

describe.skipIf(missing.length > 0)('config/samples on the bwrap runtime', () => {
  it.each([
    { image: 'busybox', os: 'sandflow-busybox', probe: 'true' },
    ...(hasMmdebstrap
      ? [
          {
            image: 'debian-python',
            os: 'debian',
            probe: `python3 -c 'import sys; print("python", sys.version_info[0])'`,
          },
        ]
      : []),
  ])(
    'the one-off session completes in the $image image, pulled with the organization Secret',
    { timeout: 600_000 },
    async ({ image, os: osId, probe }) => {
      const env = await startBwrapEnv();
      try {
        const built = images[image]!;
        const ref = `${registry.host}/${built.repository}:${built.tag}`;
        await applySamples(
          env,
          ref,
          // The platform's data folder (kubeconfig, tokens) and the repository are not in the step's world.
          `echo "os=$(. /etc/os-release && echo $ID) as=$(id -u):$(id -g)" && ${probe} && ` +
            `test ! -e "${env.dataDir}/kubeconfig" && test ! -e "${ROOT}package.json" && echo host-hidden`,
        );
        const r = await finishedRun(env);
        expect(r.status!.phase, JSON.stringify(r.status, null, 1)).toBe('COMPLETED');
        const byName = Object.fromEntries((r.status!.sandboxStatuses ?? []).map((s) => [s.name, s]));
        expect(byName.process!.subSandboxes!.map((s) => s.status)).toEqual([
          'COMPLETED',
          'COMPLETED',
          'COMPLETED',
        ]);
        expect(byName.alert!.status).toBe('SKIPPING');
        const report = r.status!.outputs!.find((o) => o.sandbox === 'merge' && o.name === 'report.txt')!;
        expect(fs.readFileSync(path.join(env.dataDir, 'runs', report.path!), 'utf8')).toBe(
          'SENSOR-A 12.5\nSENSOR-B 13.1\nSENSOR-C 11.8\n',
        );
        expect(readLog(env, byName.publish!.log!)).toBe('published 3 lines\n');
        const ingest = readLog(env, byName.ingest!.log!);
        expect(ingest).toContain(`os=${osId} as=${RUN_AS.uid}:${RUN_AS.gid}\n`);
        expect(ingest).toContain('host-hidden\n');
        expect(fs.existsSync(path.join(env.dataDir, 'kubeconfig'))).toBe(true);
        if (image === 'debian-python') expect(ingest).toContain('python 3\n');
        // Pulled through the registry into the layout, the pull cache.
        expect(fs.readFileSync(path.join(env.dataDir, 'images/index.json'), 'utf8')).toContain(
          `${registry.host}/${built.repository}:${built.tag}`,
        );
      } finally {
        await env.close();
      }
    },
  );

  it(
    'an image the registry lacks ends the run in ERROR naming the image and the cause',
    { timeout: 300_000 },
    async () => {
      const env = await startBwrapEnv();
      try {
        const ref = `${registry.host}/sandflow/absent:1.0`;
        await applySamples(env, ref, 'true');
        const r = await finishedRun(env);
        expect(r.status!.phase).toBe('ERROR');
        const wf = (await env.api.getNamespacedCustomObject({
          group: 'argoproj.io',
          version: 'v1alpha1',
          plural: 'workflows',
          namespace: NS,
          name: r.status!.argoWorkflow!,
        })) as {
          status: { nodes: Record<string, { displayName: string; phase: string; message?: string }> };
        };
        const ingest = Object.values(wf.status.nodes).find((n) => n.displayName === 'sb-ingest')!;
        expect(ingest.phase).toBe('Error');
        expect(ingest.message).toContain(`pulling ${ref} (`);
        expect(ingest.message).toMatch(/\((amd64|arm)\) failed: .*no such image or tag/);
        // The platform keeps serving: the runner still answers for the namespace.
        expect((await listRuns(env, NS)).length).toBeGreaterThan(0);
      } finally {
        await env.close();
      }
    },
  );
});
