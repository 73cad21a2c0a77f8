// The sandbox builder: the "container" of the sandbox page. A long-lived container started from
// an image, with shells under a pseudo-terminal, file uploads, and a commit that turns what
// changed into one OCI layer appended to the source image. Embedded mode implements it with bwrap
// over the unpacked image; cluster mode with a Pod (pods/exec). The API knows only this interface.
import type { Readable } from 'node:stream';
import type { Architecture } from './store.js';

export interface BuilderStartOptions {
  /** Source image reference (`python:3.12-slim`, `registry:5000/busybox:1.36`, `…@sha256:…`). */
  image: string;
  architecture: Architecture;
  /** Numeric ids the shells run as (spec 1: the user's UID; the GID of their group). */
  uid: number;
  gid: number;
  /** Who started it and for which organization: containers are listed and reaped by these. */
  owner: string;
  organization: string;
  /** Host folders made visible inside (the organization's mount points). */
  mounts?: { hostPath: string; mountPath: string; readOnly?: boolean }[];
}

export interface BuilderContainer {
  id: string;
  image: string;
  architecture: Architecture;
  owner: string;
  organization: string;
  startedAt: string;
}

/** One interactive shell under a pseudo-terminal (UTF-8; Ctrl-C reaches the foreground job). */
export interface BuilderShell {
  write(data: string | Buffer): void;
  resize(cols: number, rows: number): void;
  onData(listener: (data: string) => void): void;
  onExit(listener: (code: number) => void): void;
  /** Ends the shell and everything it started. */
  close(): void;
}

export interface BuilderChange {
  /** Absolute path inside the container. */
  path: string;
  kind: 'added' | 'modified' | 'deleted';
}

export interface CommitTarget {
  /** Where the new image goes: a reference in a registry or the local store (`repo:tag`). */
  reference: string;
}

export interface CommitResult {
  /** `repo:tag@sha256:…` as pushed. */
  reference: string;
  digest: string;
  /** The appended layer's digest and size in bytes (compressed). */
  layer: { digest: string; size: number };
}

export interface Builder {
  start(options: BuilderStartOptions): Promise<BuilderContainer>;
  get(id: string): BuilderContainer | undefined;
  list(): BuilderContainer[];
  shell(id: string, size: { cols: number; rows: number }): Promise<BuilderShell>;
  /** Whether a file exists at `path` (absolute inside the container, or relative to its workdir). */
  exists(id: string, path: string): Promise<boolean>;
  /** Streams `content` into `path`, replacing what was there; parents are created. */
  writeFile(
    id: string,
    path: string,
    content: Readable,
    options?: { maxBytes?: number },
  ): Promise<{ size: number }>;
  /** What differs from the source image, sorted by path. */
  changes(id: string): Promise<BuilderChange[]>;
  /** The changes as one layer appended to the source image, pushed to `target`. */
  commit(id: string, target: CommitTarget): Promise<CommitResult>;
  /** Stops every shell and removes the container's files. Unknown ids are a no-op. */
  stop(id: string): Promise<void>;
}
