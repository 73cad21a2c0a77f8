import type { Credentials, CredentialsByHost } from './credentials.js';
import { isIndexMediaType, type Descriptor, type ImageIndex, type ImageManifest } from './media-types.js';
import { formatReference, registryHost, type ImageReference } from './reference.js';
import { RegistryStore, type RegistryStoreOptions } from './registry/store.js';
import {
  parseManifest,
  resolveImage,
  type Architecture,
  type ImageStore,
  type ManifestBytes,
} from './store.js';

export interface CopyOptions {
  from: ImageStore;
  fromRepository: string;
  /** Tag or digest in the source. */
  reference: string;
  to: ImageStore;
  toRepository: string;
  /** Tag to give the copy; without one it is reachable by digest only. */
  tag?: string;
  /** Copy only this platform's manifest out of an index; without it an index is copied whole. */
  platform?: Architecture;
  /** A repository of the destination that may already hold the blobs (cross-repository mount). */
  mountFrom?: string;
}

export interface CopyResult {
  digest: string;
  mediaType: string;
  /** Blobs actually transferred (present or mounted ones are not counted). */
  blobsCopied: number;
}

/** Copies an image between stores, blobs first and manifests last so the destination is never left pointing at nothing. */
export async function copyImage(options: CopyOptions): Promise<CopyResult> {
  const subject = `${options.fromRepository}:${options.reference}`;
  const counter = { blobsCopied: 0 };
  let top: ManifestBytes;
  if (options.platform) {
    const resolved = await resolveImage(
      options.from,
      options.fromRepository,
      options.reference,
      options.platform,
      subject,
    );
    top = resolved;
  } else {
    top = await options.from.getManifest(options.fromRepository, options.reference);
  }
  const parsed = parseManifest(top, subject);
  if (isIndexMediaType(top.mediaType) || 'manifests' in parsed) {
    for (const child of (parsed as ImageIndex).manifests) {
      const bytes = await options.from.getManifest(options.fromRepository, child.digest);
      await copyManifest(options, bytes, subject, counter);
    }
    await options.to.putManifest(options.toRepository, top, options.tag);
  } else {
    await copyManifest(options, top, subject, counter, options.tag);
  }
  return { digest: top.digest, mediaType: top.mediaType, blobsCopied: counter.blobsCopied };
}

async function copyManifest(
  options: CopyOptions,
  manifest: ManifestBytes,
  subject: string,
  counter: { blobsCopied: number },
  tag?: string,
): Promise<void> {
  const parsed = parseManifest(manifest, subject) as ImageManifest;
  for (const blob of [parsed.config, ...parsed.layers]) await copyBlob(options, blob, counter);
  await options.to.putManifest(options.toRepository, manifest, tag);
}

async function copyBlob(
  options: CopyOptions,
  blob: Descriptor,
  counter: { blobsCopied: number },
): Promise<void> {
  if (await options.to.hasBlob(options.toRepository, blob.digest)) return;
  let opened = false;
  await options.to.putBlob(
    options.toRepository,
    {
      digest: blob.digest,
      size: blob.size,
      open: () => ((opened = true), options.from.getBlob(options.fromRepository, blob)),
    },
    options.mountFrom ? { mountFrom: options.mountFrom } : {},
  );
  if (opened) counter.blobsCopied++;
}

/** The registry a reference points at, with the credentials configured for its host. */
export function registryFor(
  ref: ImageReference,
  credentials: CredentialsByHost = new Map(),
  options: Omit<RegistryStoreOptions, 'host' | 'credentials'> = {},
): RegistryStore {
  const host = registryHost(ref.domain);
  const found: Credentials | undefined = credentials.get(host);
  return new RegistryStore({ ...options, host, ...(found ? { credentials: found } : {}) });
}

/** The name an image has inside a layout: `docker.io/library/python`. */
export function layoutName(ref: ImageReference): string {
  return `${ref.domain}/${ref.repository}`;
}

/** Pulls `ref` for one platform from its registry into the layout, tagged as in the registry. */
export async function pullImage(
  ref: ImageReference,
  layout: ImageStore,
  platform: Architecture,
  credentials?: CredentialsByHost,
): Promise<CopyResult> {
  return copyImage({
    from: registryFor(ref, credentials),
    fromRepository: ref.repository,
    reference: ref.digest ?? ref.tag ?? 'latest',
    to: layout,
    toRepository: layoutName(ref),
    ...(ref.tag ? { tag: ref.tag } : {}),
    platform,
  });
}

/** Pushes an image of the layout (`source`) to the registry `target` names. */
export async function pushImage(
  layout: ImageStore,
  source: ImageReference,
  target: ImageReference,
  credentials?: CredentialsByHost,
): Promise<CopyResult & { reference: string }> {
  const result = await copyImage({
    from: layout,
    fromRepository: layoutName(source),
    reference: source.digest ?? source.tag ?? 'latest',
    to: registryFor(target, credentials),
    toRepository: target.repository,
    ...(target.tag ? { tag: target.tag } : {}),
  });
  return { ...result, reference: `${formatReference({ ...target, tag: undefined })}@${result.digest}` };
}
