// The bwrap command line shared by the runtime's steps and the sandbox builder's shells: new user,
// pid, ipc and uts namespaces (the network is shared), a private copy of the image root at /, a
// fresh /proc, a minimal /dev, optionally a private /tmp, the given binds and mount points, the
// user's UID and GID, the image config's Env and WorkingDir, and nothing of the host's environment.
import fs from 'node:fs';
import path from 'node:path';
import type { ImageRuntimeConfig } from '@sandflow/images';

export const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** The bwrap binary on PATH, if any. */
export function findBwrap(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const p = dir && path.join(dir, 'bwrap');
    if (p && fs.existsSync(p)) return p;
  }
  return undefined;
}

export interface SandboxSpec {
  /** The private, writable copy of the image root. */
  root: string;
  hostname: string;
  config: ImageRuntimeConfig;
  uid: number;
  gid: number;
  /** A tmpfs at /tmp (steps); without it /tmp is the root's own (builders, whose shells share it). */
  privateTmp: boolean;
  /** Host paths bound inside, in order (after the root, /proc, /dev and /tmp). */
  binds?: { hostPath: string; mountPath: string; readOnly?: boolean }[];
  /** Variables over the image's Env (which is over PATH, HOSTNAME and HOME). */
  env?: Record<string, string>;
}

/** bwrap's arguments up to and including `--`; the command follows. */
export function sandboxArgs(spec: SandboxSpec): string[] {
  const args = [
    '--unshare-user',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--die-with-parent',
    '--hostname',
    spec.hostname.slice(0, 63),
    '--bind',
    spec.root,
    '/',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
  ];
  if (spec.privateTmp) args.push('--tmpfs', '/tmp');
  for (const m of spec.binds ?? []) args.push(m.readOnly ? '--ro-bind' : '--bind', m.hostPath, m.mountPath);
  args.push('--uid', String(spec.uid), '--gid', String(spec.gid));
  args.push('--chdir', spec.config.WorkingDir || '/', '--clearenv');
  const env: Record<string, string> = {
    PATH: DEFAULT_PATH,
    HOSTNAME: spec.hostname,
    HOME: spec.uid === 0 ? '/root' : '/tmp',
  };
  for (const kv of spec.config.Env ?? []) {
    const eq = kv.indexOf('=');
    if (eq > 0) env[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  Object.assign(env, spec.env);
  for (const [k, v] of Object.entries(env)) args.push('--setenv', k, v);
  args.push('--');
  return args;
}
