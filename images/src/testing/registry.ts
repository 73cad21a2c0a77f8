// Starts Debian's docker-registry (the CNCF distribution server) on a free 127.0.0.1 port in a
// temporary folder, without auth or with htpasswd (bcrypt) auth, for the image store's tests.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTokenService, TOKEN_ISSUER, TOKEN_SERVICE, type TokenService } from './token-service.js';

export const REGISTRY_BINARY = '/usr/bin/docker-registry';

/** Why the registry tests cannot run here, or undefined when they can. */
export function registryMissing(options: { auth?: boolean } = {}): string | undefined {
  if (!existsSync(REGISTRY_BINARY))
    return 'docker-registry is not installed (apt-get install docker-registry)';
  if (options.auth && !hasHtpasswd()) return 'htpasswd is not installed (apt-get install apache2-utils)';
  if (options.auth && !hasOpenssl()) return 'openssl is not installed (apt-get install openssl)';
  return undefined;
}

function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function hasHtpasswd(): boolean {
  try {
    execFileSync('htpasswd', ['-nbB', 'probe', 'probe'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export interface TestRegistry {
  host: string;
  /** The bearer token service, when the registry was started with `token`. */
  tokens?: TokenService;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export interface RegistryOptions {
  /** htpasswd (basic) users. */
  users?: Record<string, string>;
  /** Bearer tokens from a token service that knows these users instead. */
  token?: { users: Record<string, string>; expiresInSeconds?: number };
}

export async function startRegistry(options: RegistryOptions = {}): Promise<TestRegistry> {
  const dir = await mkdtemp(join(tmpdir(), 'sandflow-registry-'));
  const port = await freePort();
  const host = `127.0.0.1:${port}`;
  let auth = '';
  if (options.users) {
    const lines = Object.entries(options.users).map(([user, password]) =>
      execFileSync('htpasswd', ['-nbB', user, password], { encoding: 'utf8' }).trim(),
    );
    await writeFile(join(dir, 'htpasswd'), lines.join('\n') + '\n');
    auth = `auth:\n  htpasswd:\n    realm: sandflow-test\n    path: ${join(dir, 'htpasswd')}\n`;
  }
  let tokens: TokenService | undefined;
  if (options.token) {
    tokens = await startTokenService(dir, options.token.users, options.token.expiresInSeconds ?? 300);
    auth = [
      'auth:',
      '  token:',
      `    realm: ${tokens.realm}`,
      `    service: ${TOKEN_SERVICE}`,
      `    issuer: ${TOKEN_ISSUER}`,
      `    rootcertbundle: ${tokens.certPath}`,
      '',
    ].join('\n');
  }
  const config = [
    'version: 0.1',
    'log:',
    '  level: warn',
    'storage:',
    '  filesystem:',
    `    rootdirectory: ${join(dir, 'data')}`,
    '  delete:',
    '    enabled: true',
    'http:',
    `  addr: ${host}`,
    auth,
  ].join('\n');
  await writeFile(join(dir, 'config.yml'), config);
  const child = spawn(REGISTRY_BINARY, ['serve', join(dir, 'config.yml')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  try {
    await waitReady(host, child, () => stderr);
  } catch (error) {
    child.kill('SIGKILL');
    await tokens?.close();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  let stopping: Promise<void> | undefined;
  return {
    host,
    ...(tokens ? { tokens } : {}),
    // Once: a child killed by a signal keeps exitCode null, so a second stop would wait forever.
    stop: () =>
      (stopping ??= (async () => {
        await tokens?.close();
        if (child.exitCode === null && child.signalCode === null) {
          const exited = new Promise((resolve) => child.once('exit', resolve));
          child.kill('SIGTERM');
          await exited;
        }
        await rm(dir, { recursive: true, force: true });
      })()),
  };
}

async function waitReady(host: string, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`docker-registry exited with ${child.exitCode}: ${stderr()}`);
    try {
      const res = await fetch(`http://${host}/v2/`);
      await res.body?.cancel();
      if (res.status === 200 || res.status === 401) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`docker-registry did not answer on ${host} within 20 s: ${stderr()}`);
}
