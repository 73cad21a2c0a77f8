// A step's writable root as an overlay over the shared image root, where the kernel lets an
// unprivileged user namespace mount overlayfs (Linux ≥ 5.11): Debian 12's bwrap 0.8 cannot
// (`--overlay-src` came in 0.9), so `unshare` enters a user and mount namespace as its root, mounts
// the overlay there and execs bwrap, which nests its own namespaces on top. The mount lives and dies
// with the step's namespaces; only the upper folder (the step's writes) is left to remove. Copying
// the root instead costs seconds for a Debian image (≈10,000 files) against milliseconds.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface OverlayDirs {
  lower: string;
  upper: string;
  work: string;
  merged: string;
}

/** The argv prefix that runs the rest of the argv with the overlay mounted at `merged`. */
export function overlayLauncher(d: OverlayDirs): string[] {
  return [
    'unshare',
    '--user',
    '--map-root-user',
    '--mount',
    '--',
    'sh',
    '-c',
    'mount -t overlay overlay -o "lowerdir=$1,upperdir=$2,workdir=$3" "$4" && shift 4 && exec "$@"',
    'sandflow-overlay',
    d.lower,
    d.upper,
    d.work,
    d.merged,
  ];
}

/** overlayfs parses `,` and `:` in its options: such paths cannot be given to it. */
export const overlayablePath = (p: string) => !/[,:\\]/.test(p);

/** Makes the folders of an overlay rooted at `dir` (`dir/{upper,work,merged}`) over `lower`. */
export function overlayDirs(dir: string, lower: string): OverlayDirs {
  const d = {
    lower,
    upper: path.join(dir, 'upper'),
    work: path.join(dir, 'work'),
    merged: path.join(dir, 'merged'),
  };
  for (const p of [d.upper, d.work, d.merged]) fs.mkdirSync(p, { recursive: true });
  return d;
}

let supported: boolean | undefined;

/** Whether this machine mounts an overlay in a user namespace (probed once per process). */
export function overlaySupported(): boolean {
  if (supported !== undefined) return supported;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-overlay-probe-'));
  try {
    const lower = path.join(dir, 'lower');
    fs.mkdirSync(lower);
    fs.writeFileSync(path.join(lower, 'probe'), 'lower');
    const d = overlayDirs(path.join(dir, 'o'), lower);
    execFileSync(
      overlayLauncher(d)[0]!,
      [...overlayLauncher(d).slice(1), 'sh', '-c', `echo upper > "${d.merged}/probe"`],
      {
        stdio: 'ignore',
        timeout: 10_000,
      },
    );
    // Written through the overlay: the upper has it, the lower is untouched.
    supported =
      fs.readFileSync(path.join(d.upper, 'probe'), 'utf8') === 'upper\n' &&
      fs.readFileSync(path.join(lower, 'probe'), 'utf8') === 'lower';
  } catch {
    supported = false;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return supported;
}
