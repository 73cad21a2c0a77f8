// Appends one layer to an image, daemonless (what `crane append` does): the source image's layers
// go to the target store first (mounted across repositories where the target registry offers it),
// then the new layer, then a config whose rootfs.diff_ids and history end with the new layer, then
// a manifest of the source's own kind (Docker v2 or OCI) tagged as asked. Blobs before manifests,
// so the target never points at something missing.
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { sha256Digest } from '../digest.js';
import { MediaType, type Descriptor, type ImageConfig, type ImageManifest } from '../media-types.js';
import { getImageConfig, resolveImage, type Architecture, type ImageStore } from '../store.js';
import type { LayerFile } from './layer.js';

export interface AppendOptions {
  /** Where the source image and its blobs are read. */
  from: ImageStore;
  fromRepository: string;
  /** Tag or digest of the source in `from`. */
  reference: string;
  architecture: Architecture;
  to: ImageStore;
  toRepository: string;
  tag?: string;
  /** A repository of `to` that holds the source layers (cross-repository mount). */
  mountFrom?: string;
  layer: Omit<LayerFile, 'path'> & { open: () => Readable };
  /** The history entry's `created_by`. */
  createdBy: string;
  /** When the layer was made (ISO 8601); now by default. */
  created?: string;
  /** The new image's run settings from the source's (an application image sets its user, folder and command). */
  configure?: (source: NonNullable<ImageConfig['config']>) => NonNullable<ImageConfig['config']>;
}

export interface AppendResult {
  digest: string;
  mediaType: string;
  manifest: ImageManifest;
  config: ImageConfig;
}

/** A layer written by writeLayer, ready for appendLayer. */
export function layerBlob(layer: LayerFile): AppendOptions['layer'] {
  return {
    digest: layer.digest,
    diffId: layer.diffId,
    size: layer.size,
    open: () => createReadStream(layer.path),
  };
}

export async function appendLayer(options: AppendOptions): Promise<AppendResult> {
  const subject = `${options.fromRepository}:${options.reference}`;
  const source = await resolveImage(
    options.from,
    options.fromRepository,
    options.reference,
    options.architecture,
    subject,
  );
  const config = await getImageConfig(options.from, options.fromRepository, source.manifest, subject);
  for (const blob of source.manifest.layers) {
    await options.to.putBlob(
      options.toRepository,
      {
        digest: blob.digest,
        size: blob.size,
        open: () => options.from.getBlob(options.fromRepository, blob),
      },
      options.mountFrom ? { mountFrom: options.mountFrom } : {},
    );
  }
  await options.to.putBlob(options.toRepository, {
    digest: options.layer.digest,
    size: options.layer.size,
    open: options.layer.open,
  });

  const created = options.created ?? new Date().toISOString();
  const next: ImageConfig & { created?: string } = {
    ...config,
    ...(options.configure ? { config: options.configure(config.config ?? {}) } : {}),
    created,
    rootfs: { type: 'layers', diff_ids: [...config.rootfs.diff_ids, options.layer.diffId] },
    history: [...(config.history ?? []), { created, created_by: options.createdBy }],
  };
  const configBytes = Buffer.from(JSON.stringify(next));
  const configDescriptor: Descriptor = {
    mediaType: source.manifest.config.mediaType,
    digest: sha256Digest(configBytes),
    size: configBytes.length,
  };
  await options.to.putBlob(options.toRepository, {
    digest: configDescriptor.digest,
    size: configDescriptor.size,
    open: () => Readable.from([configBytes]),
  });

  const docker = source.mediaType === MediaType.dockerManifest;
  const manifest: ImageManifest = {
    schemaVersion: 2,
    mediaType: source.mediaType,
    config: configDescriptor,
    layers: [
      ...source.manifest.layers,
      {
        mediaType: docker ? MediaType.dockerLayerGzip : MediaType.ociLayerGzip,
        digest: options.layer.digest,
        size: options.layer.size,
      },
    ],
  };
  const bytes = Buffer.from(JSON.stringify(manifest));
  const digest = await options.to.putManifest(
    options.toRepository,
    { mediaType: source.mediaType, bytes },
    options.tag,
  );
  return { digest, mediaType: source.mediaType, manifest, config: next };
}
