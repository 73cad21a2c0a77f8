// Builds a Debian image from a recipe (mmdebstrap) as a one-layer OCI image layout, once per machine:
// the result is cached under .cache/images/<name>-<key>/oci (the key covers the recipe and the
// architecture), so test files and benchmarks that ask again get it at once. debian-python.ts and
// debian-node.ts are recipes for this.
// Needs `mmdebstrap` (apt-get install mmdebstrap) and Debian's mirror. `--mode=auto` runs as root
// where we are root (these machines, CI) and in `unshare` mode otherwise, which needs unprivileged
// user namespaces and subordinate ids for the user (/etc/subuid, newuidmap from `uidmap`).
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { machineArchitecture } from '@sandflow/images';

const run = promisify(execFile);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const IMAGE_CACHE = path.join(repoRoot, '.cache/images');

/** What mmdebstrap is asked for; all of it is part of the cache key. */
export interface DebianRecipe {
  version: number;
  suite: string;
  variant: string;
  include: string[];
  dpkgopt: string[];
}

/** Documentation and translations are most of the bytes a program never reads. */
export const DOCS_LEFT_OUT = [
  'path-exclude=/usr/share/doc/*',
  'path-exclude=/usr/share/man/*',
  'path-exclude=/usr/share/locale/*',
];

export interface DebianImageSpec {
  /** The cache folder's prefix (`debian-python` → .cache/images/debian-python-<key>). */
  name: string;
  /** The reference named in the layout's index.json. */
  reference: string;
  recipe: DebianRecipe;
  /** The image config's Cmd. */
  cmd: string[];
  /** Which recipe file built it (the history entry says so). */
  builtBy: string;
}

export interface DebianImage {
  reference: string;
  architecture: string;
  /** OCI image layout folder (read-only: it is the machine's cache). */
  oci: string;
  manifestDigest: string;
  layerDigest: string;
  layerBytes: number;
  /** The build ran now (false: taken from the cache). */
  built: boolean;
}

/** Passes bytes through while hashing them and counting them. */
function hashing() {
  const hash = createHash('sha256');
  let bytes = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  return { stream, result: () => ({ digest: `sha256:${hash.digest('hex')}`, bytes }) };
}

function writeBlob(oci: string, body: Buffer) {
  const digest = `sha256:${createHash('sha256').update(body).digest('hex')}`;
  fs.writeFileSync(path.join(oci, 'blobs/sha256', digest.slice(7)), body);
  return { digest, size: body.length };
}

async function build(spec: DebianImageSpec, into: string, architecture: string): Promise<void> {
  const { recipe } = spec;
  const oci = path.join(into, 'oci');
  fs.mkdirSync(path.join(oci, 'blobs/sha256'), { recursive: true });
  const rootTar = path.join(into, 'rootfs.tar');
  try {
    await run(
      'mmdebstrap',
      [
        '--mode=auto',
        `--variant=${recipe.variant}`,
        `--include=${recipe.include.join(',')}`,
        `--architectures=${architecture}`,
        // Device nodes are refused by the unpacker (and bwrap gives steps a /dev of their own).
        '--skip=output/dev',
        ...recipe.dpkgopt.map((o) => `--dpkgopt=${o}`),
        recipe.suite,
        rootTar,
      ],
      { maxBuffer: 64 * 1024 * 1024 },
    );
  } catch (e) {
    const err = e as Error & { code?: string; stderr?: string };
    const why =
      err.code === 'ENOENT'
        ? 'mmdebstrap is not installed (apt-get install mmdebstrap)'
        : err.stderr?.trim().split('\n').slice(-5).join('\n') || err.message;
    throw new Error(`building ${spec.reference} failed: ${why}`, { cause: e });
  }
  // One pass: the uncompressed digest (diff_id) before gzip, the blob digest after.
  const plain = hashing();
  const packed = hashing();
  const tmpLayer = path.join(oci, 'layer.tmp');
  await pipeline(
    fs.createReadStream(rootTar),
    plain.stream,
    zlib.createGzip(),
    packed.stream,
    fs.createWriteStream(tmpLayer),
  );
  fs.rmSync(rootTar);
  const layer = packed.result();
  fs.renameSync(tmpLayer, path.join(oci, 'blobs/sha256', layer.digest.slice(7)));
  const config = {
    architecture,
    os: 'linux',
    config: {
      Env: ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'LANG=C.UTF-8'],
      Cmd: spec.cmd,
      WorkingDir: '/',
    },
    rootfs: { type: 'layers', diff_ids: [plain.result().digest] },
    history: [{ created_by: `sandflow ${spec.builtBy}: mmdebstrap ${JSON.stringify(recipe)}` }],
  };
  const configBlob = writeBlob(oci, Buffer.from(JSON.stringify(config)));
  const manifest = {
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.manifest.v1+json',
    config: { mediaType: 'application/vnd.oci.image.config.v1+json', ...configBlob },
    layers: [
      { mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', digest: layer.digest, size: layer.bytes },
    ],
  };
  const manifestBlob = writeBlob(oci, Buffer.from(JSON.stringify(manifest)));
  fs.writeFileSync(path.join(oci, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  fs.writeFileSync(
    path.join(oci, 'index.json'),
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.index.v1+json',
      manifests: [
        {
          mediaType: manifest.mediaType,
          ...manifestBlob,
          platform: { architecture, os: 'linux' },
          annotations: { 'org.opencontainers.image.ref.name': spec.reference },
        },
      ],
    }),
  );
}

function describeBuilt(reference: string, dir: string, built: boolean): DebianImage {
  const oci = path.join(dir, 'oci');
  const index = JSON.parse(fs.readFileSync(path.join(oci, 'index.json'), 'utf8')) as {
    manifests: { digest: string; platform: { architecture: string } }[];
  };
  const entry = index.manifests[0]!;
  const manifest = JSON.parse(
    fs.readFileSync(path.join(oci, 'blobs/sha256', entry.digest.slice(7)), 'utf8'),
  ) as {
    layers: { digest: string; size: number }[];
  };
  return {
    reference,
    architecture: entry.platform.architecture,
    oci,
    manifestDigest: entry.digest,
    layerDigest: manifest.layers[0]!.digest,
    layerBytes: manifest.layers[0]!.size,
    built,
  };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The cached image, built first when this machine has none; concurrent callers wait for one build. */
export async function debianImage(spec: DebianImageSpec, cacheDir = IMAGE_CACHE): Promise<DebianImage> {
  const architecture = machineArchitecture();
  const key = createHash('sha256')
    .update(JSON.stringify({ ...spec.recipe, architecture }))
    .digest('hex')
    .slice(0, 16);
  const dir = path.join(cacheDir, `${spec.name}-${key}`);
  const lock = `${dir}.lock`;
  fs.mkdirSync(cacheDir, { recursive: true });
  for (;;) {
    if (fs.existsSync(path.join(dir, 'oci/index.json'))) return describeBuilt(spec.reference, dir, false);
    try {
      fs.mkdirSync(lock);
    } catch {
      // Another process builds it; a lock whose builder died is taken over.
      const holder = Number(fs.readFileSync(path.join(lock, 'pid'), { encoding: 'utf8', flag: 'a+' }) || 0);
      if (holder > 0 && !alive(holder)) fs.rmSync(lock, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 500));
      continue;
    }
    fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
    const tmp = path.join(cacheDir, `.tmp-${randomBytes(6).toString('hex')}`);
    try {
      await build(spec, tmp, architecture);
      fs.renameSync(tmp, dir);
      return describeBuilt(spec.reference, dir, true);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
      fs.rmSync(lock, { recursive: true, force: true });
    }
  }
}

/** The command line of a recipe file: `[--cache <dir>]`, one JSON line out. */
export function debianImageMain(make: (cacheDir?: string) => Promise<DebianImage>): void {
  const at = process.argv.indexOf('--cache');
  make(at > 0 ? path.resolve(process.argv[at + 1]!) : undefined).then(
    (image) => console.log(JSON.stringify(image)),
    (e: unknown) => {
      console.error((e as Error).message);
      process.exit(1);
    },
  );
}
