// Stages the application the way the Dockerfile's build stage does, without an engine: the files
// git tracks in the runtime workspaces, the console built by vite, and production node_modules
// installed by `npm ci --omit=dev` for the root and the runtime workspaces (native modules are the
// prebuilt linux-<arch> ones npm picks for this machine: build on linux/<arch> with the base image's
// Node major version).
//
// The built console and the production node_modules are cached under `cacheDir` (.cache/image-stage),
// keyed by what they are made from (the console's tracked files; package-lock.json, the workspaces'
// package.json files, Node's version and the platform), so a second build copies them.
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';

/** What the image runs from (the Dockerfile copies the same; .dockerignore leaves out the rest). */
export const RUNTIME_PATHS = [
  'package.json',
  'package-lock.json',
  'tsconfig.base.json',
  'kube',
  'images',
  'crds',
  'embedded',
  'operator',
  'api',
  'console/package.json',
];

/**
 * The workspaces whose production dependencies the image installs: not the console's (React, MUI:
 * more than half of node_modules), whose bundle console/dist is all the image serves.
 */
export const RUNTIME_WORKSPACES = ['kube', 'images', 'crds', 'embedded', 'operator', 'api'];
const NPM_CI = [
  'ci',
  '--omit=dev',
  '--no-audit',
  '--no-fund',
  '--include-workspace-root',
  ...RUNTIME_WORKSPACES.map((w) => `--workspace=${w}`),
];

const LEFT_OUT = /(^|\/)(node_modules|dist|scripts)\/|\.test\.tsx?$|(^|\/)testing\//;

export interface StageOptions {
  /** Where the built console and node_modules are kept between builds; none: nothing is cached. */
  cacheDir?: string;
  log?: (line: string) => void;
}

export interface StageResult {
  files: number;
  /** Each part came from the cache (true) or was made now (false). */
  consoleCached: boolean;
  nodeModulesCached: boolean;
}

const gitFiles = (repoRoot: string, paths: string[]) =>
  execFileSync('git', ['ls-files', '-z', '--', ...paths], { cwd: repoRoot, encoding: 'utf8' })
    .split('\0')
    .filter(Boolean);

/** sha256 over the names and working-tree contents of `files`, plus `extra`. */
async function keyOf(repoRoot: string, files: string[], extra: string): Promise<string> {
  const hash = createHash('sha256').update(extra);
  for (const f of [...files].sort()) {
    hash.update(`\0${f}\0`);
    hash.update(await fs.readFile(path.join(repoRoot, f)).catch(() => Buffer.from('(missing)')));
  }
  return hash.digest('hex').slice(0, 16);
}

/** How many entries of each kind (console-*, node_modules-*) the stage cache keeps, most recently used first. */
export const CACHE_KEEP = 2;
/** A `.tmp-*` folder older than this was left by a build that died; younger ones may be in use. */
const STALE_TMP_MS = 60 * 60_000;

/**
 * Keeps the cache from growing with every change of the console or the lock file: of the entries
 * named `<kind>-<key>`, the `keep` most recently used stay (a hit touches its entry), and `.tmp-*`
 * folders older than an hour go. Answers what was removed.
 */
export async function pruneCache(cacheDir: string, kind: string, keep = CACHE_KEEP): Promise<string[]> {
  const names = await fs.readdir(cacheDir).catch(() => [] as string[]);
  const aged = await Promise.all(
    names.map(async (name) => ({ name, mtime: (await fs.stat(path.join(cacheDir, name))).mtimeMs })),
  );
  const entries = aged.filter((e) => e.name.startsWith(`${kind}-`)).sort((a, b) => b.mtime - a.mtime);
  const stale = aged.filter((e) => e.name.startsWith('.tmp-') && Date.now() - e.mtime > STALE_TMP_MS);
  const removed = [...entries.slice(keep), ...stale].map((e) => e.name);
  for (const name of removed) await fs.rm(path.join(cacheDir, name), { recursive: true, force: true });
  return removed;
}

/**
 * `dest` made by `make(into)`, through the cache folder `<cacheDir>/<name>` when there is one (made
 * once, then copied; a concurrent maker's result is taken as it is). Answers whether it was cached.
 */
async function cached(
  cacheDir: string | undefined,
  name: string,
  dest: string,
  make: (into: string) => Promise<void>,
): Promise<boolean> {
  const copy = (from: string, to: string) => execFileSync('cp', ['-a', '--reflink=auto', from, to]);
  await fs.mkdir(path.dirname(dest), { recursive: true });
  if (!cacheDir) {
    await make(dest);
    return false;
  }
  const kept = path.join(cacheDir, name);
  if (existsSync(kept)) {
    copy(kept, dest);
    const now = new Date();
    await fs.utimes(kept, now, now); // most recently used: pruneCache keeps it
    return true;
  }
  await make(dest);
  await fs.mkdir(cacheDir, { recursive: true });
  const tmp = path.join(cacheDir, `.tmp-${randomBytes(6).toString('hex')}`);
  copy(dest, tmp);
  await fs.rename(tmp, kept).catch(() => fs.rm(tmp, { recursive: true, force: true }));
  await pruneCache(cacheDir, name.slice(0, name.lastIndexOf('-')));
  return false;
}

export async function stageApp(
  repoRoot: string,
  appDir: string,
  { cacheDir, log = console.log }: StageOptions = {},
): Promise<StageResult> {
  const tracked = gitFiles(repoRoot, RUNTIME_PATHS).filter((f) => !LEFT_OUT.test(f));
  for (const file of tracked) {
    await fs.mkdir(path.join(appDir, path.dirname(file)), { recursive: true });
    await fs.copyFile(path.join(repoRoot, file), path.join(appDir, file));
  }
  log(`staged ${tracked.length} files`);

  // The console as the Dockerfile builds it (`npm run build -w console`), into the stage: the
  // checkout's own console/dist is neither needed nor touched.
  // Its tests are not part of the bundle: a changed test does not rebuild it.
  const consoleFiles = gitFiles(repoRoot, ['console']).filter((f) => !/\.test\.tsx?$/.test(f));
  const consoleKey = await keyOf(repoRoot, consoleFiles, 'console');
  const consoleCached = await cached(
    cacheDir,
    `console-${consoleKey}`,
    path.join(appDir, 'console/dist'),
    async (into) => {
      log('building the console (vite build) ...');
      execFileSync('npx', ['vite', 'build', '--outDir', into, '--emptyOutDir', '--logLevel', 'warn'], {
        cwd: path.join(repoRoot, 'console'),
        stdio: ['ignore', 'inherit', 'inherit'],
      });
    },
  );
  if (!existsSync(path.join(appDir, 'console/dist/index.html')))
    throw new Error('the console build left no index.html');

  const manifests = ['package-lock.json', ...tracked.filter((f) => f.endsWith('package.json'))];
  const modulesKey = await keyOf(
    repoRoot,
    manifests,
    `${process.version} ${process.platform} ${process.arch} npm ${NPM_CI.join(' ')}`,
  );
  const nodeModulesCached = await cached(
    cacheDir,
    `node_modules-${modulesKey}`,
    path.join(appDir, 'node_modules'),
    async () => {
      log(`npm ${NPM_CI.join(' ')} ...`);
      execFileSync('npm', NPM_CI, {
        cwd: appDir,
        stdio: ['ignore', 'inherit', 'inherit'],
      });
    },
  );
  log(
    `console ${consoleCached ? 'from the cache' : 'built'}, node_modules ${nodeModulesCached ? 'from the cache' : 'installed'}`,
  );
  return { files: tracked.length, consoleCached, nodeModulesCached };
}
