// Builds small, well-formed images in memory for the store tests.
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { sha256Digest } from '../digest.js';
import { MediaType, type Descriptor, type ImageIndex, type ImageManifest } from '../media-types.js';
import type { BlobInput, ImageStore, ManifestBytes } from '../store.js';

export interface FixtureImage {
  blobs: Map<string, Buffer>;
  manifest: ManifestBytes;
  config: Descriptor;
  layers: Descriptor[];
}

export function blobOf(bytes: Buffer): BlobInput {
  return { digest: sha256Digest(bytes), size: bytes.length, open: () => Readable.from([bytes]) };
}

export function fixtureImage(
  options: { architecture?: string; layerSizes?: number[]; docker?: boolean } = {},
): FixtureImage {
  const architecture = options.architecture ?? 'amd64';
  const blobs = new Map<string, Buffer>();
  const layers = (options.layerSizes ?? [1024]).map((size) => {
    const bytes = randomBytes(size);
    blobs.set(sha256Digest(bytes), bytes);
    return {
      mediaType: options.docker ? MediaType.dockerLayerGzip : MediaType.ociLayerGzip,
      digest: sha256Digest(bytes),
      size,
    };
  });
  const configBytes = Buffer.from(
    JSON.stringify({
      architecture,
      os: 'linux',
      config: { Env: ['PATH=/usr/bin:/bin'], Cmd: ['sh'] },
      rootfs: { type: 'layers', diff_ids: layers.map((l) => l.digest) },
    }),
  );
  blobs.set(sha256Digest(configBytes), configBytes);
  const config = {
    mediaType: options.docker ? MediaType.dockerConfig : MediaType.ociConfig,
    digest: sha256Digest(configBytes),
    size: configBytes.length,
  };
  const mediaType = options.docker ? MediaType.dockerManifest : MediaType.ociManifest;
  const body: ImageManifest = { schemaVersion: 2, mediaType, config, layers };
  const bytes = Buffer.from(JSON.stringify(body));
  return { blobs, config, layers, manifest: { digest: sha256Digest(bytes), mediaType, bytes } };
}

export function fixtureIndex(
  images: FixtureImage[],
  platforms: { architecture: string; variant?: string }[],
): ManifestBytes {
  const body: ImageIndex = {
    schemaVersion: 2,
    mediaType: MediaType.ociIndex,
    manifests: images.map((image, i) => ({
      mediaType: image.manifest.mediaType,
      digest: image.manifest.digest,
      size: image.manifest.bytes.length,
      platform: { os: 'linux', ...platforms[i]! },
    })),
  };
  const bytes = Buffer.from(JSON.stringify(body));
  return { digest: sha256Digest(bytes), mediaType: MediaType.ociIndex, bytes };
}

export async function pushFixture(
  store: ImageStore,
  repository: string,
  image: FixtureImage,
  tag?: string,
): Promise<string> {
  for (const bytes of image.blobs.values()) await store.putBlob(repository, blobOf(bytes));
  return store.putManifest(repository, image.manifest, tag);
}
