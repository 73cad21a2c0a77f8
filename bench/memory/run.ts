// Resident memory of `npm start`'s process (node embedded/dist/main.js, bundled first), on a new
// data folder and then reopening it: RSS when it starts serving, after `idle` seconds of doing
// nothing, and the peak (VmHWM); with the log at debug level, the memory at each start-up stage.
// Usage: npm run bench:memory -- [idle seconds = 30] [tsx]   (tsx: run the sources under tsx)
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const idleSeconds = Number(process.argv[2] ?? 30);
const underTsx = process.argv[3] === 'tsx';
const ENTRY = 'embedded/src/main.ts';
/** What `npm start` runs, made by embedded/scripts/build.ts in `prestart`. */
const OUTFILE = 'embedded/dist/main.js';
const MB = 1024 * 1024;

interface Stage {
  stage: string;
  memory: NodeJS.MemoryUsage;
}

/** VmRSS and VmHWM of a process, in bytes (Linux). */
function statusOf(pid: number): { rss: number; peak: number } {
  const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

async function measure(dataDir: string) {
  const child = spawn(process.execPath, underTsx ? ['--import', 'tsx', ENTRY] : [OUTFILE], {
    cwd: repoRoot,
    env: {
      ...process.env,
      SANDFLOW_DATA_DIR: dataDir,
      SANDFLOW_PORT: '0',
      SANDFLOW_KUBE_PORT: '0',
      SANDFLOW_LOG_LEVEL: 'debug',
      SANDFLOW_ADMIN_EMAIL: 'bench@example.com',
      SANDFLOW_ADMIN_PASSWORD: 'Bench-Memory-Passw0rd!',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stages: Stage[] = [];
  const t0 = performance.now();
  let buffered = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`the platform exited with ${code} before serving`)));
    child.stdout.on('data', (d: Buffer) => {
      buffered += d.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        if (!line.startsWith('{')) continue;
        const entry = JSON.parse(line) as { msg: string; url?: string } & Partial<Stage>;
        if (entry.msg === 'start-up stage') stages.push(entry as Stage);
        if (entry.msg === 'sandflow serving') resolve(entry.url!);
      }
    });
  });
  const startSeconds = (performance.now() - t0) / 1000;
  const atReady = statusOf(child.pid!);
  await new Promise((r) => setTimeout(r, idleSeconds * 1000));
  const idle = statusOf(child.pid!);
  const metrics = await (await fetch(`${url}/metrics`)).text();
  const sample = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1] ?? NaN);
  const exit = new Promise((r) => child.once('exit', r));
  child.kill('SIGINT');
  const code = await exit;
  return {
    startSeconds,
    atReady,
    idle,
    heapUsed: sample('nodejs_heap_size_used_bytes'),
    external: sample('nodejs_external_memory_bytes'),
    stages,
    code,
  };
}

if (!underTsx)
  execFileSync(process.execPath, ['--import', 'tsx', 'embedded/scripts/build.ts'], {
    cwd: repoRoot,
    stdio: 'inherit',
  });
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-bench-memory-'));
try {
  for (const name of ['new data folder', 'reopened']) {
    const m = await measure(dataDir);
    const mb = (n: number) => `${(n / MB).toFixed(0)} MB`;
    console.log(
      `${name}: serving after ${m.startSeconds.toFixed(1)} s at ${mb(m.atReady.rss)}; ` +
        `after ${idleSeconds} s idle ${mb(m.idle.rss)} RSS (heap used ${mb(m.heapUsed)}, ` +
        `external ${mb(m.external)}); peak ${mb(m.idle.peak)}; exit code ${String(m.code)}`,
    );
    for (const s of m.stages)
      console.log(
        `  ${s.stage.padEnd(28)} rss ${mb(s.memory.rss).padStart(7)}  heap ${mb(s.memory.heapUsed).padStart(7)}` +
          `  external ${mb(s.memory.external).padStart(7)}  array buffers ${mb(s.memory.arrayBuffers).padStart(7)}`,
      );
  }
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
}
