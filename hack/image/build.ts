// Daemonless build of the Sandflow image: stage the app, append it as one layer onto a Node base
// image pulled from a registry, push the result. No Docker, no buildah: the project's own OCI code.
//
//   npx tsx hack/image/build.ts --to 127.0.0.1:5000/sandflow:dev [--from node:20-slim] [--arch amd64]
//                               [--cache .cache/image-stage | --no-cache]
//
// The built console and the production node_modules are kept in --cache between builds (see
// stage.ts). Where Docker Hub is out of reach, hack/images/debian-node.ts makes a Debian trixie
// base with Node 20.19 to push to the registry and name in --from. The last line printed is JSON:
// the pushed reference, digest, compressed size and the build's seconds.
//
// Credentials: DOCKER_CONFIG/config.json or ~/.docker/config.json (the `auths` entries `docker
// login` writes). Registries on localhost/127.0.0.0/8 are spoken to over plain HTTP, as Docker does;
// --insecure does so for any host.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  RegistryStore,
  parseDockerConfigJson,
  parseReference,
  registryHost,
  type CredentialsByHost,
} from '@sandflow/images';
import { buildAppImage } from './build-image.js';
import { stageApp } from './stage.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The API's command; the chart and config/ set the operator's. */
export const DEFAULT_CMD = ['node', '--import', 'tsx', 'embedded/src/cluster/api.ts'];

async function dockerCredentials(): Promise<CredentialsByHost> {
  const dir = process.env.DOCKER_CONFIG ?? path.join(os.homedir(), '.docker');
  const file = path.join(dir, 'config.json');
  const json = await fs.readFile(file, 'utf8').catch(() => undefined);
  return json ? parseDockerConfigJson(json, file) : new Map();
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      from: { type: 'string', default: 'node:20-slim' },
      to: { type: 'string' },
      arch: { type: 'string', default: 'amd64' },
      insecure: { type: 'boolean', default: false },
      cache: { type: 'string', default: path.join(repoRoot, '.cache/image-stage') },
      'no-cache': { type: 'boolean', default: false },
    },
  });
  if (!values.to) throw new Error('--to <registry/repository:tag> is required');
  if (values.arch !== 'amd64' && values.arch !== 'arm')
    throw new Error(`--arch must be amd64 or arm, not ${values.arch}`);
  const from = parseReference(values.from);
  const to = parseReference(values.to);
  const credentials = await dockerCredentials();
  const store = (domain: string) => {
    const host = registryHost(domain);
    const found = credentials.get(host);
    return new RegistryStore({
      host,
      ...(found ? { credentials: found } : {}),
      ...(values.insecure ? { insecure: true } : {}),
    });
  };
  const started = Date.now();
  const work = await fs.mkdtemp(path.join(os.tmpdir(), 'sandflow-stage-'));
  try {
    await stageApp(repoRoot, path.join(work, 'app'), {
      ...(values['no-cache'] ? {} : { cacheDir: path.resolve(values.cache) }),
    });
    const result = await buildAppImage({
      root: work,
      from: store(from.domain),
      fromRepository: from.repository,
      reference: from.digest ?? from.tag ?? 'latest',
      to: store(to.domain),
      toRepository: to.repository,
      tag: to.tag ?? 'latest',
      architecture: values.arch,
      cmd: DEFAULT_CMD,
    });
    const reference = `${to.domain}/${to.repository}:${to.tag ?? 'latest'}`;
    const bytes = result.manifest.layers.reduce((sum, l) => sum + l.size, 0);
    const seconds = Math.round((Date.now() - started) / 100) / 10;
    console.log(
      `pushed ${reference}@${result.digest}: ${(bytes / 1e6).toFixed(1)} MB compressed, ${seconds} s`,
    );
    console.log(JSON.stringify({ reference, digest: result.digest, bytes, seconds }));
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1]))
  main().catch((e: unknown) => {
    console.error(`image build failed: ${(e as Error).message}`);
    process.exit(1);
  });
