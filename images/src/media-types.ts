// The OCI image spec and Docker v2 schema 2 shapes this package reads and writes.
export const MediaType = {
  ociManifest: 'application/vnd.oci.image.manifest.v1+json',
  ociIndex: 'application/vnd.oci.image.index.v1+json',
  ociConfig: 'application/vnd.oci.image.config.v1+json',
  ociLayerGzip: 'application/vnd.oci.image.layer.v1.tar+gzip',
  ociLayer: 'application/vnd.oci.image.layer.v1.tar',
  dockerManifest: 'application/vnd.docker.distribution.manifest.v2+json',
  dockerManifestList: 'application/vnd.docker.distribution.manifest.list.v2+json',
  dockerConfig: 'application/vnd.docker.container.image.v1+json',
  dockerLayerGzip: 'application/vnd.docker.image.rootfs.diff.tar.gzip',
} as const;

export const MANIFEST_MEDIA_TYPES = [
  MediaType.ociManifest,
  MediaType.ociIndex,
  MediaType.dockerManifest,
  MediaType.dockerManifestList,
] as const;

export interface Platform {
  architecture: string;
  os: string;
  variant?: string;
}

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  annotations?: Record<string, string>;
  platform?: Platform;
}

export interface ImageManifest {
  schemaVersion: 2;
  mediaType?: string;
  config: Descriptor;
  layers: Descriptor[];
  annotations?: Record<string, string>;
}

export interface ImageIndex {
  schemaVersion: 2;
  mediaType?: string;
  manifests: Descriptor[];
  annotations?: Record<string, string>;
}

export interface ImageConfig {
  architecture: string;
  os: string;
  variant?: string;
  config?: {
    Env?: string[];
    Entrypoint?: string[] | null;
    Cmd?: string[] | null;
    WorkingDir?: string;
    User?: string;
    Labels?: Record<string, string>;
  };
  rootfs: { type: 'layers'; diff_ids: string[] };
  history?: unknown[];
}

export function isIndexMediaType(mediaType: string | undefined): boolean {
  return mediaType === MediaType.ociIndex || mediaType === MediaType.dockerManifestList;
}

/** The manifest's own mediaType field, or what its shape says when the field is absent (OCI allows that). */
export function manifestMediaType(parsed: { mediaType?: string; manifests?: unknown }): string {
  if (parsed.mediaType) return parsed.mediaType;
  return Array.isArray(parsed.manifests) ? MediaType.ociIndex : MediaType.ociManifest;
}
