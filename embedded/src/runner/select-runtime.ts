// Which runtime the local runner uses. Unset, steps are isolated whenever this machine allows it:
// bwrap when its binary is found and a one-time probe (a user and pid namespace over a read-only
// view of /) succeeds; otherwise the process runtime, which still lets `npm start` work on a fresh
// machine but runs steps with the platform's own rights — hence the warning kept for /readyz.
import { execFileSync } from 'node:child_process';
import { findBwrap } from './bwrap.js';

export type RuntimeKind = 'process' | 'bwrap';

export interface RuntimeChoice {
  kind: RuntimeKind;
  /** Steps run in namespaces and cannot see the data folder. */
  isolated: boolean;
  /** The bwrap binary the probe ran (bwrap only). */
  bwrap?: string;
  /** Why steps are not isolated and how to fix it (process only). */
  warning?: string;
}

export type BwrapProbe = { ok: true; bwrap: string } | { ok: false; reason: string };

/** The bwrap asked of the probe cannot run a step (explicit SANDFLOW_RUNTIME=bwrap). */
export class RuntimeUnavailableError extends Error {}

/** Runs `true` under bwrap in the namespaces a step gets; says why not when it cannot. */
export function probeBwrap(bwrap: string | undefined): BwrapProbe {
  if (!bwrap) return { ok: false, reason: 'bwrap is not on PATH' };
  try {
    execFileSync(
      bwrap,
      ['--unshare-user', '--unshare-pid', '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', 'true'],
      { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000 },
    );
    return { ok: true, bwrap };
  } catch (e) {
    const err = e as Error & { stderr?: Buffer };
    const said = err.stderr?.toString().trim();
    return { ok: false, reason: `${bwrap} cannot make namespaces here: ${said || err.message}` };
  }
}

const FIX =
  'install bubblewrap (apt-get install bubblewrap) where unprivileged user namespaces are allowed, then restart';

export function chooseRuntime(
  requested: RuntimeKind | undefined,
  probe: () => BwrapProbe = () => probeBwrap(findBwrap()),
): RuntimeChoice {
  if (requested === 'process') {
    return {
      kind: 'process',
      isolated: false,
      warning: 'SANDFLOW_RUNTIME=process: container steps run as host processes with the platform’s rights',
    };
  }
  const probed = probe();
  if (probed.ok) return { kind: 'bwrap', isolated: true, bwrap: probed.bwrap };
  if (requested === 'bwrap')
    throw new RuntimeUnavailableError(`SANDFLOW_RUNTIME=bwrap: ${probed.reason}; ${FIX}`);
  return {
    kind: 'process',
    isolated: false,
    warning: `container steps are NOT isolated: they run as host processes with the platform’s rights (${probed.reason}); ${FIX}, or set SANDFLOW_RUNTIME=process to accept it`,
  };
}
