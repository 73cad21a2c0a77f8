// Root filesystems from the image store: the layout folder is the pull cache, a registry the
// source. An image is pulled once per reference and architecture (concurrent requests share the
// pull), and its layer chain is unpacked once (the unpacker caches per chain).
import type { CredentialsByHost } from './credentials.js';
import { ImageError } from './errors.js';
import { layoutName, pullImage, registryFor } from './copy.js';
import type { LayoutStore } from './layout/store.js';
import { formatReference, parseReference, type ImageReference } from './reference.js';
import { normalizeArchitecture, type ImageRoot, type RootfsProvider } from './rootfs.js';
import type { Descriptor, ImageConfig } from './media-types.js';
import { getImageConfig, platformOf, resolveImage, type Architecture } from './store.js';
import { unpackChain } from './unpack/index.js';

export interface StoreRootfsOptions {
  /** The pull cache (`$SANDFLOW_DATA_DIR/images`). */
  layout: LayoutStore;
  /** Where unpacked layer chains are kept. */
  cacheDir: string;
  /** Registry credentials by host, e.g. from dockerconfigjson Secrets. */
  credentials?: CredentialsByHost;
}

function toArchitecture(arch: string, subject: string): Architecture {
  const normalized = normalizeArchitecture(arch);
  if (normalized === 'amd64') return 'amd64';
  if (normalized === 'arm64') return 'arm';
  throw new ImageError('PLATFORM_NOT_FOUND', `${subject}: architecture ${arch} is not amd64 or arm`);
}

export function storeRootfsProvider(options: StoreRootfsOptions): RootfsProvider {
  const inflight = new Map<string, Promise<ImageRoot>>();
  return (image, architecture) => {
    const key = `${image}\n${architecture}`;
    let p = inflight.get(key);
    if (!p) {
      p = rootOf(options, image, architecture).finally(() => inflight.delete(key));
      inflight.set(key, p);
    }
    return p;
  };
}

async function rootOf(options: StoreRootfsOptions, image: string, architecture: string): Promise<ImageRoot> {
  const ref = parseReference(image);
  const subject = formatReference(ref);
  const arch = toArchitecture(architecture, subject);
  const at = {
    layout: options.layout,
    repository: layoutName(ref),
    reference: ref.digest ?? ref.tag ?? 'latest',
  };
  let found = await fromLayout(at, arch, subject);
  if (!('config' in found)) {
    await pull(ref, options, arch, subject);
    found = await fromLayout(at, arch, subject);
  }
  if (!('config' in found)) {
    // The registry had a single-platform image of another architecture, not an index to choose from.
    const wanted = platformOf(arch);
    throw new ImageError(
      'PLATFORM_NOT_FOUND',
      `${subject} has no ${wanted.os}/${wanted.architecture} image (it has ${found.other ?? 'none'})`,
    );
  }
  const chain = await unpackChain(
    options.cacheDir,
    found.layers.map((l) => ({ digest: l.digest, open: () => at.layout.getBlob(at.repository, l) })),
  );
  return { root: chain.root, config: found.config.config ?? {} };
}

async function pull(ref: ImageReference, options: StoreRootfsOptions, arch: Architecture, subject: string) {
  try {
    const pulled = await pullImage(ref, options.layout, arch, options.credentials);
    if (ref.digest && pulled.digest !== ref.digest) {
      // The digest names an index and the pull kept only the platform's manifest: the index is
      // stored too, so the next lookup by that digest finds the image without the registry.
      const index = await registryFor(ref, options.credentials).getManifest(ref.repository, ref.digest);
      await options.layout.putManifest(layoutName(ref), index);
    }
  } catch (error) {
    const code = error instanceof ImageError ? error.code : 'REGISTRY_ERROR';
    const why = error instanceof Error ? error.message : String(error);
    throw new ImageError(code, `pulling ${subject} (${arch}) failed: ${why}`, { cause: error });
  }
}

type Found = { config: ImageConfig; layers: Descriptor[] } | { other?: string };

/** The image's config and layers when the layout holds it for `arch`; else which platform it holds, if any. */
async function fromLayout(
  at: { layout: LayoutStore; repository: string; reference: string },
  arch: Architecture,
  subject: string,
): Promise<Found> {
  let resolved;
  try {
    resolved = await resolveImage(at.layout, at.repository, at.reference, arch, subject);
  } catch (error) {
    if (error instanceof ImageError && (error.code === 'NOT_FOUND' || error.code === 'PLATFORM_NOT_FOUND'))
      return {};
    throw error;
  }
  const config = await getImageConfig(at.layout, at.repository, resolved.manifest, subject);
  // A pull stores the platform's manifest alone, so its config is what says which platform it is.
  if (config.architecture && config.architecture !== platformOf(arch).architecture) {
    return { other: `${config.os}/${config.architecture}` };
  }
  return { config, layers: resolved.manifest.layers };
}
