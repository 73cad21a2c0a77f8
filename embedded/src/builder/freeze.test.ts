// Pausing a builder container: every process under its shells stops, and comes back as it was
// (a shell's foreground job keeps the terminal).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  buildBusyboxImage,
  findBusyboxStatic,
  localRootfsProvider,
  machineArchitecture,
} from '@sandflow/images';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBwrap } from '../bwrap/sandbox.js';
import { BwrapBuilder } from './builder.js';
import { freezeTree } from './freeze.js';
import type { PtyShell } from './shell.js';

const missing = [
  !findBwrap() && 'bwrap (apt-get install bubblewrap)',
  !findBusyboxStatic() && 'busybox-static',
].filter(Boolean);
if (missing.length > 0) console.warn(`builder freeze tests skipped: ${missing.join(' and ')} not installed`);

let tmp: string;
let builder: BwrapBuilder;
let image: string;

/** Process states of everything under `root`, by pid. */
function treeStates(root: number): string[] {
  const all = fs
    .readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .flatMap((n) => {
      try {
        const stat = fs.readFileSync(`/proc/${n}/stat`, 'utf8');
        const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return [{ pid: Number(n), ppid: Number(ppid), state: state! }];
      } catch {
        return [];
      }
    });
  const under = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of all)
      if (under.has(p.ppid) && !under.has(p.pid)) {
        under.add(p.pid);
        grew = true;
      }
  }
  return all.filter((p) => p.pid !== root && under.has(p.pid)).map((p) => p.state);
}

async function until(check: () => boolean, what: string) {
  for (let i = 0; i < 400; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`never happened: ${what}`);
}

describe.skipIf(missing.length > 0)('freezing a builder container', () => {
  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'builder-freeze-'));
    const built = await buildBusyboxImage(path.join(tmp, 'images'));
    image = built.reference;
    builder = new BwrapBuilder({
      dataDir: path.join(tmp, 'data'),
      rootfs: localRootfsProvider(built.unpacked),
    });
  }, 60_000);
  afterAll(async () => {
    await builder?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('stops every process of the shell and gives the foreground job its terminal back', async () => {
    const arch = machineArchitecture() === 'arm64' ? 'arm' : 'amd64';
    const { id } = await builder.start({
      image,
      architecture: arch,
      uid: 0,
      gid: 0,
      owner: 'a',
      organization: 'o',
    });
    const shell = (await builder.shell(id, { cols: 80, rows: 24 })) as PtyShell;
    let out = '';
    shell.onData((d) => (out += d));
    const ready = path.join(tmp, 'data', 'builders', id, 'rootfs', 'tmp', 'cat-ready');
    shell.write(`sh -c 'echo $$ > /tmp/cat-ready; exec cat'\r`);
    await until(() => fs.existsSync(ready), 'cat started');

    const thaw = await freezeTree([shell.pid]);
    const frozen = treeStates(shell.pid);
    thaw();
    expect(frozen.length).toBeGreaterThanOrEqual(3); // bwrap's init, the shell, cat
    expect(frozen.every((s) => s === 'T')).toBe(true);
    await until(() => treeStates(shell.pid).every((s) => s !== 'T'), 'all running again');

    shell.write('still-cat\r');
    await until(() => /still-cat\r\nstill-cat\r\n/.test(out), `cat echoed the line (terminal: ${out})`);
    shell.write('\x04');
    shell.write('echo back-$((1+1))\r');
    await until(() => out.includes('back-2'), 'the shell took the terminal back');
    await builder.stop(id);
  }, 30_000);
});
