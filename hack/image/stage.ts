// Stages the application the way the Dockerfile's build stage does, without an engine: the files
// git tracks in the runtime workspaces, the built console, and production node_modules installed by
// `npm ci --omit=dev` (native modules built for this machine's Node: build on linux/<arch> with
// the base image's Node major version).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
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

const LEFT_OUT = /(^|\/)(node_modules|dist|scripts)\/|\.test\.tsx?$|(^|\/)testing\//;

export async function stageApp(repoRoot: string, appDir: string, log = console.log): Promise<void> {
  const consoleDist = path.join(repoRoot, 'console/dist/index.html');
  await fs.access(consoleDist).catch(() => {
    throw new Error('the console is not built: run `npm run build -w console` first');
  });
  const tracked = execFileSync('git', ['ls-files', '-z', '--', ...RUNTIME_PATHS], {
    cwd: repoRoot,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((f) => f && !LEFT_OUT.test(f));
  for (const file of tracked) {
    await fs.mkdir(path.join(appDir, path.dirname(file)), { recursive: true });
    await fs.copyFile(path.join(repoRoot, file), path.join(appDir, file));
  }
  await fs.cp(path.join(repoRoot, 'console/dist'), path.join(appDir, 'console/dist'), { recursive: true });
  log(`staged ${tracked.length} files and console/dist; npm ci --omit=dev ...`);
  execFileSync('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund'], { cwd: appDir, stdio: 'inherit' });
}
