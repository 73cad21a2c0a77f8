import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DigestVerifier, assertDigest, isDigest, sha256Digest } from '../digest.js';
import { ImageError } from '../errors.js';
import { MediaType, type Descriptor, type ImageIndex } from '../media-types.js';
import type { BlobInput, ImageStore, ManifestBytes } from '../store.js';

/** The annotation skopeo, umoci and containerd read a tag from. */
export const REF_NAME = 'org.opencontainers.image.ref.name';
const CONTAINERD_NAME = 'io.containerd.image.name';

/**
 * How old a file in `.ingest` must be to count as the leftover of a writer that crashed. Other
 * processes may write the same folder (the server, `hack/images`), so only files nobody has
 * written to for this long are removed: a blob being written gets a new mtime with every chunk.
 */
export const INGEST_LEFTOVER_AGE_MS = 60 * 60 * 1000;

/** Where the layout lives by default: `$SANDFLOW_DATA_DIR/images`. */
export function defaultLayoutDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.SANDFLOW_DATA_DIR ?? '.data', 'images');
}

/**
 * An OCI image layout folder (`oci-layout`, `index.json`, `blobs/sha256/…`), holding images of
 * any registry: a repository is the full name (`docker.io/library/python`), a tag is the index
 * entry whose ref.name is `name:tag`.
 */
export class LayoutStore implements ImageStore {
  readonly description: string;
  private ready: Promise<void> | undefined;

  constructor(readonly root: string = defaultLayoutDir()) {
    this.description = `layout ${root}`;
  }

  async listTags(repository: string): Promise<string[]> {
    const prefix = `${repository}:`;
    return (await this.readIndex()).manifests
      .map((m) => m.annotations?.[REF_NAME])
      .filter(
        (name): name is string => !!name?.startsWith(prefix) && !name.slice(prefix.length).includes('/'),
      )
      .map((name) => name.slice(prefix.length));
  }

  async getManifest(repository: string, reference: string): Promise<ManifestBytes> {
    const subject = `${repository}${isDigest(reference) ? '@' : ':'}${reference}`;
    let descriptor: Pick<Descriptor, 'digest' | 'mediaType'> | undefined;
    if (isDigest(reference)) {
      descriptor = { digest: reference, mediaType: '' };
    } else {
      descriptor = (await this.readIndex()).manifests.find(
        (m) => m.annotations?.[REF_NAME] === `${repository}:${reference}`,
      );
    }
    if (!descriptor || !(await this.hasBlob(repository, descriptor.digest))) {
      throw new ImageError('NOT_FOUND', `${subject}: not in the image store ${this.root}`);
    }
    const bytes = await readFile(this.blobPath(descriptor.digest));
    if (sha256Digest(bytes) !== descriptor.digest) {
      throw new ImageError(
        'DIGEST_MISMATCH',
        `${subject}: the stored manifest ${descriptor.digest} is corrupt`,
      );
    }
    const parsed = JSON.parse(bytes.toString('utf8')) as { mediaType?: string; manifests?: unknown };
    const mediaType =
      descriptor.mediaType ||
      parsed.mediaType ||
      (Array.isArray(parsed.manifests) ? MediaType.ociIndex : MediaType.ociManifest);
    return { digest: descriptor.digest, mediaType, bytes };
  }

  async hasBlob(_repository: string, digest: string): Promise<boolean> {
    try {
      return (await stat(this.blobPath(digest))).isFile();
    } catch {
      return false;
    }
  }

  async getBlob(repository: string, descriptor: { digest: string; size?: number }): Promise<Readable> {
    if (!(await this.hasBlob(repository, descriptor.digest))) {
      throw new ImageError(
        'NOT_FOUND',
        `${repository}: blob ${descriptor.digest} is not in the image store ${this.root}`,
      );
    }
    const file = createReadStream(this.blobPath(descriptor.digest));
    const verifier = new DigestVerifier(descriptor.digest, descriptor.size, repository);
    file.on('error', (error) => verifier.destroy(error));
    return file.pipe(verifier);
  }

  /** Writes into a scratch file and renames it into place only once its digest checks out. */
  async putBlob(repository: string, blob: BlobInput): Promise<void> {
    if (await this.hasBlob(repository, blob.digest)) return;
    await this.init();
    const scratch = join(this.root, '.ingest', randomUUID());
    try {
      await pipeline(
        await blob.open(),
        new DigestVerifier(blob.digest, blob.size, repository),
        createWriteStream(scratch, { flags: 'wx' }),
      );
      await rename(scratch, this.blobPath(blob.digest));
    } catch (error) {
      await rm(scratch, { force: true });
      throw error;
    }
  }

  async putManifest(
    repository: string,
    manifest: Omit<ManifestBytes, 'digest'>,
    tag?: string,
  ): Promise<string> {
    const digest = sha256Digest(manifest.bytes);
    await this.putBlob(repository, {
      digest,
      size: manifest.bytes.length,
      open: () => Readable.from([manifest.bytes]),
    });
    if (tag) {
      const name = `${repository}:${tag}`;
      await this.updateIndex((index) => {
        index.manifests = index.manifests.filter((m) => m.annotations?.[REF_NAME] !== name);
        index.manifests.push({
          mediaType: manifest.mediaType,
          digest,
          size: manifest.bytes.length,
          annotations: { [REF_NAME]: name, [CONTAINERD_NAME]: name },
        });
      });
    }
    return digest;
  }

  /** Forgets a tag; the blobs stay (they may be shared with other images). */
  async untag(repository: string, tag: string): Promise<void> {
    await this.updateIndex((index) => {
      index.manifests = index.manifests.filter((m) => m.annotations?.[REF_NAME] !== `${repository}:${tag}`);
    });
  }

  blobPath(digest: string): string {
    return join(this.root, 'blobs', 'sha256', assertDigest(digest).slice('sha256:'.length));
  }

  private init(): Promise<void> {
    this.ready ??= (async () => {
      await mkdir(join(this.root, 'blobs', 'sha256'), { recursive: true });
      await mkdir(join(this.root, '.ingest'), { recursive: true });
      await this.removeIngestLeftovers();
      await writeFile(join(this.root, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }), {
        flag: 'wx',
      }).catch(ignoreExists);
      await writeFile(
        join(this.root, 'index.json'),
        JSON.stringify({ schemaVersion: 2, mediaType: MediaType.ociIndex, manifests: [] }),
        { flag: 'wx' },
      ).catch(ignoreExists);
    })();
    return this.ready;
  }

  /**
   * Half-written blobs and index files a crashed writer left in `.ingest` (the scratch files
   * of putBlob and updateIndex, never renamed into place). Best effort: a file that cannot be
   * removed is left for the next start rather than failing this write.
   */
  private async removeIngestLeftovers(): Promise<void> {
    const ingest = join(this.root, '.ingest');
    const before = Date.now() - INGEST_LEFTOVER_AGE_MS;
    for (const name of await readdir(ingest)) {
      const file = join(ingest, name);
      try {
        if ((await stat(file)).mtimeMs < before) await rm(file, { recursive: true, force: true });
      } catch {
        // Renamed into place or removed by its writer meanwhile, or not ours to remove.
      }
    }
  }

  private async readIndex(): Promise<ImageIndex> {
    let text: string;
    try {
      text = await readFile(join(this.root, 'index.json'), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { schemaVersion: 2, manifests: [] };
      throw error;
    }
    try {
      return JSON.parse(text) as ImageIndex;
    } catch (error) {
      throw new ImageError('INVALID_MANIFEST', `${join(this.root, 'index.json')} is not JSON`, {
        cause: error,
      });
    }
  }

  /**
   * index.json is rewritten whole: one writer at a time per folder (the runner, the builder and
   * the API each hold a LayoutStore on the same folder), replaced by rename so readers never see
   * half of it.
   */
  private updateIndex(change: (index: ImageIndex) => void): Promise<void> {
    const key = resolve(this.root);
    const previous = indexLocks.get(key) ?? Promise.resolve();
    const next = previous.then(async () => {
      await this.init();
      const index = await this.readIndex();
      change(index);
      const scratch = join(this.root, '.ingest', `index-${randomUUID()}.json`);
      await writeFile(scratch, JSON.stringify(index));
      await rename(scratch, join(this.root, 'index.json'));
    });
    const settled = next.catch(() => undefined);
    indexLocks.set(key, settled);
    void settled.then(() => {
      if (indexLocks.get(key) === settled) indexLocks.delete(key);
    });
    return next;
  }
}

/** The index writer of each layout folder in this process, by folder. */
const indexLocks = new Map<string, Promise<void>>();

function ignoreExists(error: NodeJS.ErrnoException): void {
  if (error.code !== 'EEXIST') throw error;
}
