// Root filesystems for steps, by image reference and architecture. The local provider reads a
// folder of unpacked images laid out as `<dir>/<reference>/<architecture>/{rootfs/,config.json}`
// (what hack/images writes); the image store and the unpacker will answer the same question later.
import fs from 'node:fs/promises';
import path from 'node:path';

/** The runtime part of an OCI image config (`config` in the config blob). */
export interface ImageRuntimeConfig {
  Env?: string[];
  WorkingDir?: string;
  Entrypoint?: string[] | null;
  Cmd?: string[] | null;
  User?: string;
}

export interface ImageRoot {
  /** Unpacked root filesystem; callers only read it. */
  root: string;
  config: ImageRuntimeConfig;
}

export type RootfsProvider = (image: string, architecture: string) => Promise<ImageRoot>;

/** `amd64` or `arm64` for this machine (the sandbox's `arm` is arm64). */
export function machineArchitecture(): string {
  return process.arch === 'x64' ? 'amd64' : process.arch === 'arm64' ? 'arm64' : process.arch;
}

export function normalizeArchitecture(arch: string): string {
  return arch === 'arm' ? 'arm64' : arch;
}

/** A reference with its tag spelled out (`busybox` → `busybox:latest`); digests kept. */
export function normalizeReference(image: string): string {
  if (image.includes('@')) return image;
  const slash = image.lastIndexOf('/');
  return image.slice(slash + 1).includes(':') ? image : `${image}:latest`;
}

export function localImageDir(dir: string, image: string, architecture: string): string {
  return path.join(dir, encodeURIComponent(normalizeReference(image)), normalizeArchitecture(architecture));
}

export function localRootfsProvider(dir: string): RootfsProvider {
  return async (image, architecture) => {
    const at = localImageDir(dir, image, architecture);
    let blob: { config?: ImageRuntimeConfig };
    let root: string;
    try {
      blob = JSON.parse(await fs.readFile(path.join(at, 'config.json'), 'utf8')) as typeof blob;
      // The entry may be a symlink into the layer cache; callers copy or mount the real folder.
      root = await fs.realpath(path.join(at, 'rootfs'));
    } catch (e) {
      throw new Error(
        `image ${normalizeReference(image)} (${normalizeArchitecture(architecture)}) is not in the local images folder ${dir}`,
        { cause: e },
      );
    }
    return { root, config: blob.config ?? {} };
  };
}
