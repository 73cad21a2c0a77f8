// The tiny base image from Debian's busybox-static: /bin/busybox, its applet symlinks, an
// /etc/os-release of its own, /etc/passwd and /etc/group, written as an OCI image layout (one gzip
// layer, config, manifest, index) and unpacked into a folder the local rootfs provider reads.
// hack/images/busybox.ts is its command line; the runtime tests build it in a temporary folder.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import tar from 'tar-stream';
import { localImageDir, machineArchitecture } from './rootfs.js';
import { unpackChain } from './unpack/index.js';

export const BUSYBOX_REFERENCE = 'sandflow/busybox:latest';
export const BUSYBOX_OS_RELEASE =
  'NAME="Sandflow busybox"\nID=sandflow-busybox\nPRETTY_NAME="Sandflow busybox (Debian busybox-static)"\n';

/** Where Debian's busybox-static put its binary, or undefined when the package is absent. */
export function findBusyboxStatic(): string | undefined {
  try {
    const files = execFileSync('dpkg', ['-L', 'busybox-static'], { encoding: 'utf8' }).split('\n');
    return files.find((f) => /\/bin\/busybox$/.test(f) && fs.existsSync(f));
  } catch {
    return undefined;
  }
}

type Entry = {
  name: string;
  type: 'file' | 'directory' | 'symlink';
  mode: number;
  body?: Buffer;
  linkname?: string;
};

function rootEntries(busybox: string): Entry[] {
  const dirs = [
    'bin',
    'sbin',
    'usr',
    'usr/bin',
    'usr/sbin',
    'etc',
    'root',
    'home',
    'tmp',
    'var',
    'proc',
    'dev',
    'sandflow',
  ];
  const entries: Entry[] = dirs.map((d) => ({
    name: `${d}/`,
    type: 'directory',
    mode: d === 'tmp' ? 0o1777 : 0o755,
  }));
  entries.push({ name: 'bin/busybox', type: 'file', mode: 0o755, body: fs.readFileSync(busybox) });
  const applets = execFileSync(busybox, ['--list-full'], { encoding: 'utf8' }).split('\n').filter(Boolean);
  for (const a of applets) {
    if (a === 'bin/busybox' || !dirs.includes(path.dirname(a))) continue;
    entries.push({ name: a, type: 'symlink', mode: 0o777, linkname: '/bin/busybox' });
  }
  const text = (name: string, s: string) =>
    entries.push({ name, type: 'file', mode: 0o644, body: Buffer.from(s) });
  text('etc/os-release', BUSYBOX_OS_RELEASE);
  text('etc/passwd', 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n');
  text('etc/group', 'root:x:0:\nnogroup:x:65534:\n');
  return entries;
}

async function tarOf(entries: Entry[]): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const collected = (async () => {
    for await (const c of pack) chunks.push(c as Buffer);
  })();
  const mtime = new Date(0);
  for (const { body, ...h } of entries) {
    await new Promise<void>((resolve, reject) =>
      pack.entry({ ...h, uid: 0, gid: 0, mtime }, body ?? '', (e?: Error | null) =>
        e ? reject(e) : resolve(),
      ),
    );
  }
  pack.finalize();
  await collected;
  return Buffer.concat(chunks);
}

const sha = (b: Buffer) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

function writeBlob(oci: string, b: Buffer) {
  const digest = sha(b);
  const p = path.join(oci, 'blobs', 'sha256', digest.slice(7));
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, b);
  return { digest, size: b.length };
}

export interface BuiltImage {
  reference: string;
  architecture: string;
  /** OCI image layout folder. */
  oci: string;
  /** Folder for the local rootfs provider. */
  unpacked: string;
  manifestDigest: string;
}

export async function buildBusyboxImage(outDir: string, busybox = findBusyboxStatic()): Promise<BuiltImage> {
  if (!busybox) throw new Error('busybox-static is not installed (apt-get install busybox-static)');
  const architecture = machineArchitecture();
  const raw = await tarOf(rootEntries(busybox));
  const gz = zlib.gzipSync(raw);
  const oci = path.join(outDir, 'oci');
  fs.mkdirSync(oci, { recursive: true });
  fs.writeFileSync(path.join(oci, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  const layer = writeBlob(oci, gz);
  const imageConfig = {
    architecture,
    os: 'linux',
    config: { Env: [`PATH=/usr/sbin:/usr/bin:/sbin:/bin`], Cmd: ['/bin/sh'], WorkingDir: '/' },
    rootfs: { type: 'layers', diff_ids: [sha(raw)] },
    history: [{ created_by: 'sandflow hack/images/busybox.ts from Debian busybox-static' }],
  };
  const configBlob = writeBlob(oci, Buffer.from(JSON.stringify(imageConfig)));
  const manifest = {
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.manifest.v1+json',
    config: { mediaType: 'application/vnd.oci.image.config.v1+json', ...configBlob },
    layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', ...layer }],
  };
  const manifestBlob = writeBlob(oci, Buffer.from(JSON.stringify(manifest)));
  const index = {
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.index.v1+json',
    manifests: [
      {
        mediaType: manifest.mediaType,
        ...manifestBlob,
        platform: { architecture, os: 'linux' },
        annotations: { 'org.opencontainers.image.ref.name': BUSYBOX_REFERENCE },
      },
    ],
  };
  fs.writeFileSync(path.join(oci, 'index.json'), JSON.stringify(index));

  const unpacked = path.join(outDir, 'unpacked');
  const chain = await unpackChain(path.join(outDir, 'layers'), [
    { digest: layer.digest, open: () => Readable.from([gz]) },
  ]);
  const at = localImageDir(unpacked, BUSYBOX_REFERENCE, architecture);
  fs.mkdirSync(path.dirname(at), { recursive: true });
  fs.rmSync(at, { recursive: true, force: true });
  fs.mkdirSync(at);
  fs.symlinkSync(chain.root, path.join(at, 'rootfs'));
  fs.writeFileSync(path.join(at, 'config.json'), JSON.stringify(imageConfig));
  return { reference: BUSYBOX_REFERENCE, architecture, oci, unpacked, manifestDigest: manifestBlob.digest };
}
