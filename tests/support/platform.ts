import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';

export const repoRoot = path.resolve(import.meta.dirname, '../..');

export interface Platform {
  child: ChildProcess;
  /** http://127.0.0.1:<port> */
  url: string;
  output: () => string;
  /** Sends the signal and resolves with the exit code. */
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
}

/** `npm start`'s entry point on free ports (127.0.0.1 only) with the given data folder and environment. */
export async function startPlatform(options: {
  dataDir: string;
  env?: Record<string, string>;
  timeoutMs?: number;
  /**
   * Run `npm start` itself (without its prestart build, so embedded/dist must be built) in a
   * process group of its own; stop() then signals the whole group, as Ctrl-C in a terminal does.
   */
  npmStart?: boolean;
}): Promise<Platform> {
  const [file, args] = options.npmStart
    ? ['npm', ['run', 'start', '--ignore-scripts', '--silent']]
    : [process.execPath, ['--import', 'tsx', 'embedded/src/main.ts']];
  const child = spawn(file, args, {
    cwd: repoRoot,
    detached: options.npmStart === true,
    env: {
      ...process.env,
      SANDFLOW_DATA_DIR: options.dataDir,
      SANDFLOW_PORT: '0',
      SANDFLOW_KUBE_PORT: '0',
      SANDFLOW_LOG_LEVEL: 'info',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const timeoutMs = options.timeoutMs ?? 60_000;
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no start within ${timeoutMs / 1000} s:\n${out}`));
    }, timeoutMs);
    const check = () => {
      const m = /"url":"(http:\/\/127\.0\.0\.1:\d+)","msg":"sandflow serving"/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', check);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}:\n${out}`));
    });
  });
  const stop = (signal: NodeJS.Signals = 'SIGTERM') =>
    new Promise<number | null>((resolve) => {
      if (child.exitCode !== null) return resolve(child.exitCode);
      child.once('exit', (code) => resolve(code));
      if (options.npmStart) process.kill(-child.pid!, signal);
      else child.kill(signal);
    });
  return { child, url, output: () => out, stop };
}
