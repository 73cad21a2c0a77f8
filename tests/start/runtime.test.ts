// Which runtime `npm start` picks: bwrap where it works, the process runtime with one warning line and
// a /readyz detail where it does not (a PATH without bwrap stands for a fresh machine), and a clear
// failure at start when bwrap is asked for explicitly but cannot run.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findBwrap } from '@sandflow/embedded/runner';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot, startPlatform, type Platform } from '../support/platform.js';

const dirs: string[] = [];
const started: Platform[] = [];
afterAll(async () => {
  await Promise.all(started.map((p) => p.stop()));
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
}, 60_000);
const dataDir = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-runtime-'));
  dirs.push(d);
  return d;
};

/** PATH with node (and the rest of /usr/bin) but no bwrap: a folder of links to everything else. */
function pathWithoutBwrap(): string {
  const bin = dataDir();
  for (const dir of ['/usr/local/bin', '/usr/bin', '/bin']) {
    if (!fs.existsSync(dir)) continue;
    for (const f of fs.readdirSync(dir)) {
      if (f === 'bwrap' || fs.existsSync(path.join(bin, f))) continue;
      fs.symlinkSync(path.join(dir, f), path.join(bin, f));
    }
  }
  if (!fs.existsSync(path.join(bin, 'node'))) fs.symlinkSync(process.execPath, path.join(bin, 'node'));
  return bin;
}

interface Readyz {
  status: string;
  runtime?: { kind: string; isolated: boolean; warning?: string };
}

async function boot(env: Record<string, string>) {
  // The machine may be loaded by other suites: a start gets more than the default minute.
  const p = await startPlatform({ dataDir: dataDir(), env, timeoutMs: 180_000 });
  started.push(p);
  // Ready once the API's caches have listed (serving comes a moment before).
  let res = await fetch(`${p.url}/readyz`);
  for (let i = 0; i < 600 && res.status === 503; i++) {
    await new Promise((r) => setTimeout(r, 100));
    res = await fetch(`${p.url}/readyz`);
  }
  expect(res.status, await res.clone().text()).toBe(200);
  const readyz = (await res.json()) as Readyz;
  return {
    p,
    readyz,
    warnings: p
      .output()
      .split('\n')
      .filter((l) => l.includes('"level":40')),
  };
}

describe('the runtime npm start picks', { timeout: 300_000 }, () => {
  it('without bwrap: the process runtime, one warning line and the detail in /readyz', async () => {
    const { p, readyz, warnings } = await boot({ PATH: pathWithoutBwrap() });
    await p.stop();
    expect(readyz.status).toBe('ok');
    expect(readyz.runtime).toMatchObject({ kind: 'process', isolated: false });
    expect(readyz.runtime!.warning).toMatch(/NOT isolated.*apt-get install bubblewrap/);
    const lines = warnings.filter((l) => l.includes('NOT isolated'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('bwrap is not on PATH');
  });

  it.skipIf(!findBwrap())('with a working bwrap: isolated steps and no warning', async () => {
    const { p, readyz, warnings } = await boot({});
    await p.stop();
    expect(readyz.runtime).toEqual({ kind: 'bwrap', isolated: true });
    expect(warnings.filter((l) => l.includes('isolated'))).toEqual([]);
  });

  it('SANDFLOW_RUNTIME=bwrap without bwrap stops at start naming the fix', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'embedded/src/main.ts'], {
      cwd: repoRoot,
      env: {
        ...process.env,
        PATH: pathWithoutBwrap(),
        SANDFLOW_RUNTIME: 'bwrap',
        SANDFLOW_DATA_DIR: dataDir(),
      },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('SANDFLOW_RUNTIME=bwrap: bwrap is not on PATH');
    expect(r.stderr).toContain('apt-get install bubblewrap');
  });
});
