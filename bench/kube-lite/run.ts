// kube-lite benchmark: 10k creates, a 10k list, watch delivery to 100 watchers.
// Prints figures; record them in bench/README.md. Not a test: nothing here asserts time.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fork } from 'node:child_process';
import { createDatabase, startKubeLite } from '@sandflow/embedded/testing';

const CREATES = Number(process.env.CREATES ?? 10_000);
const CONCURRENCY = 32;
const WATCHERS = 100;
const WATCH_EVENTS = 200;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kube-lite-bench-'));
const db = createDatabase({ pgliteDir: path.join(dir, 'pglite') });
const kube = await startKubeLite({ db, dataDir: dir });
// The load runs in a child process so the server's event loop is measured, not the client's.
const load = fork(new URL('./load.ts', import.meta.url), {
  execArgv: ['--import', 'tsx'],
  env: {
    ...process.env,
    BENCH: JSON.stringify({
      url: kube.url,
      token: kube.token,
      caCert: kube.caCert,
      CREATES,
      CONCURRENCY,
      WATCHERS,
      WATCH_EVENTS,
    }),
  },
});
await new Promise<void>((resolve, reject) => {
  load.on('exit', (code) =>
    code === 0 ? resolve() : reject(new Error(`load generator exited with ${code}`)),
  );
  load.on('error', reject);
});
console.log(`server rss: ${(process.memoryUsage().rss / 1024 / 1024).toFixed(0)} MB`);
await kube.close();
await db.destroy();
fs.rmSync(dir, { recursive: true, force: true });
