import type { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { ImageError } from './errors.js';
import {
  isIndexMediaType,
  manifestMediaType,
  type Descriptor,
  type ImageConfig,
  type ImageIndex,
  type ImageManifest,
  type Platform,
} from './media-types.js';

/** A sandbox's architecture as the product names it; `arm` is 64-bit ARM. */
export type Architecture = 'amd64' | 'arm';

export function platformOf(arch: Architecture): Platform {
  return { os: 'linux', architecture: arch === 'arm' ? 'arm64' : 'amd64' };
}

export interface ManifestBytes {
  digest: string;
  mediaType: string;
  bytes: Buffer;
}

export interface ResolvedImage {
  /** The platform manifest (never an index). */
  manifest: ImageManifest;
  digest: string;
  mediaType: string;
  bytes: Buffer;
  /** The index it was selected from, when the reference named one. */
  index?: ManifestBytes;
}

export interface BlobInput {
  digest: string;
  size: number;
  /** Opens the content; called again if an upload has to start over. */
  open: () => Promise<Readable> | Readable;
}

/**
 * Where images live: a registry (OCI distribution API) or an OCI image layout folder.
 * `repository` is the store's own name for an image: the path inside a registry, the full
 * name (`docker.io/library/python`) inside a layout.
 */
export interface ImageStore {
  /** For messages: `registry 127.0.0.1:5000`, `layout /data/images`. */
  readonly description: string;
  listTags(repository: string): Promise<string[]>;
  /** A manifest or index by tag or digest, exactly as stored. */
  getManifest(repository: string, reference: string): Promise<ManifestBytes>;
  hasBlob(repository: string, digest: string): Promise<boolean>;
  /** The blob's bytes; the stream errors with DIGEST_MISMATCH when they are not what `digest` says. */
  getBlob(repository: string, descriptor: Pick<Descriptor, 'digest'> & { size?: number }): Promise<Readable>;
  /** Stores a blob; `mountFrom` names a repository of the same store that already has it. */
  putBlob(repository: string, blob: BlobInput, options?: { mountFrom?: string }): Promise<void>;
  /** Stores a manifest under its digest and, when `tag` is given, tags it. Returns the digest. */
  putManifest(repository: string, manifest: Omit<ManifestBytes, 'digest'>, tag?: string): Promise<string>;
}

export function parseManifest(found: ManifestBytes, subject: string): ImageManifest | ImageIndex {
  try {
    const parsed = JSON.parse(found.bytes.toString('utf8')) as ImageManifest | ImageIndex;
    if (parsed.schemaVersion !== 2) throw new Error(`schemaVersion ${String(parsed.schemaVersion)} is not 2`);
    return parsed;
  } catch (error) {
    throw new ImageError(
      'INVALID_MANIFEST',
      `${subject}: manifest ${found.digest} is not an image manifest or index`,
      {
        cause: error,
      },
    );
  }
}

function describePlatform(p: Platform | undefined): string {
  if (!p) return 'unknown';
  return `${p.os}/${p.architecture}${p.variant ? `/${p.variant}` : ''}`;
}

/** The manifest for `arch`: the one named, or the matching entry of an index (Docker manifest list or OCI index). */
export async function resolveImage(
  store: ImageStore,
  repository: string,
  reference: string,
  arch: Architecture,
  subject = `${repository}:${reference}`,
): Promise<ResolvedImage> {
  const top = await store.getManifest(repository, reference);
  const parsed = parseManifest(top, subject);
  const wanted = platformOf(arch);
  if (!isIndexMediaType(top.mediaType) && !('manifests' in parsed)) {
    return {
      manifest: parsed as ImageManifest,
      digest: top.digest,
      mediaType: top.mediaType,
      bytes: top.bytes,
    };
  }
  const index = parsed as ImageIndex;
  const match = index.manifests.find(
    (m) =>
      m.platform?.os === wanted.os &&
      m.platform.architecture === wanted.architecture &&
      (wanted.architecture !== 'arm64' || !m.platform.variant || m.platform.variant === 'v8'),
  );
  if (!match) {
    const present = index.manifests
      .filter((m) => m.platform?.architecture !== 'unknown')
      .map((m) => describePlatform(m.platform));
    throw new ImageError(
      'PLATFORM_NOT_FOUND',
      `${subject} has no ${describePlatform(wanted)} image (it has ${present.join(', ') || 'no platforms'})`,
    );
  }
  const child = await store.getManifest(repository, match.digest);
  const manifest = parseManifest(child, subject);
  if ('manifests' in manifest) {
    throw new ImageError('INVALID_MANIFEST', `${subject}: ${match.digest} is an index inside an index`);
  }
  return { manifest, digest: child.digest, mediaType: child.mediaType, bytes: child.bytes, index: top };
}

export async function getImageConfig(
  store: ImageStore,
  repository: string,
  manifest: ImageManifest,
  subject = repository,
): Promise<ImageConfig> {
  const stream = await store.getBlob(repository, manifest.config);
  const body = await text(stream);
  try {
    return JSON.parse(body) as ImageConfig;
  } catch (error) {
    throw new ImageError('INVALID_MANIFEST', `${subject}: the config ${manifest.config.digest} is not JSON`, {
      cause: error,
    });
  }
}

export { manifestMediaType };
