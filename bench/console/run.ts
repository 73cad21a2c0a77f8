// Console size budget (issue 'Console foundation'): builds the console for production into a
// temporary folder and prints, per route, the gzipped JavaScript a browser downloads to show it
// (the entry chunk and its static imports, plus the route's lazy chunks and theirs).
// Targets: the /login route ≤ 250 KB gzipped, the whole app's initial load ≤ 400 KB gzipped.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { build } from 'vite';

const repoRoot = path.resolve(import.meta.dirname, '../..');

interface ManifestChunk {
  file: string;
  isEntry?: boolean;
  isDynamicEntry?: boolean;
  imports?: string[];
  css?: string[];
}
type Manifest = Record<string, ManifestChunk>;

const consoleDir = path.join(repoRoot, 'console');
const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-console-bench-'));
try {
  await build({ root: consoleDir, logLevel: 'warn', build: { outDir, emptyOutDir: true } });
  const manifest = JSON.parse(fs.readFileSync(path.join(outDir, '.vite/manifest.json'), 'utf8')) as Manifest;
  const gz = new Map<string, number>();
  const gzipped = (file: string) => {
    if (!gz.has(file))
      gz.set(file, zlib.gzipSync(fs.readFileSync(path.join(outDir, file)), { level: 9 }).length);
    return gz.get(file)!;
  };
  /** A chunk and everything it imports statically (what loading it costs). */
  const closure = (key: string, into = new Set<string>()) => {
    if (into.has(key)) return into;
    into.add(key);
    for (const dep of manifest[key]?.imports ?? []) closure(dep, into);
    return into;
  };
  const entry = Object.keys(manifest).find((k) => manifest[k]!.isEntry)!;
  const size = (keys: Set<string>) => [...keys].reduce((sum, k) => sum + gzipped(manifest[k]!.file), 0);
  const chunkOf = (source: string) => {
    const key = `src/${source}`;
    if (!manifest[key]) throw new Error(`no chunk for ${key}: was the screen moved? (see router.tsx)`);
    return key;
  };
  // Route → the lazy screens it loads (the shell wraps every signed-in route).
  const routes: [string, string[]][] = [
    ['/login', ['features/auth/LoginPage.tsx']],
    ['/signup', ['features/auth/SignupPage.tsx']],
    ['/verification/{token}', ['features/auth/VerificationPage.tsx']],
    ['/password/{token}', ['features/auth/PasswordResetPage.tsx']],
    ['/dashboard (shell)', ['features/shell/Shell.tsx', 'features/placeholder/NotYetPage.tsx']],
    ['/profile', ['features/shell/Shell.tsx', 'features/profile/ProfilePage.tsx']],
    ['/logs', ['features/shell/Shell.tsx', 'features/logs/LogsPage.tsx']],
  ];
  const all = new Set<string>();
  for (const key of Object.keys(manifest)) if (manifest[key]!.file.endsWith('.js')) all.add(key);
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  console.log(`entry chunk and its imports: ${kb(size(closure(entry)))} gzipped`);
  console.log('| route | JavaScript gzipped | budget |');
  console.log('| --- | --- | --- |');
  let largest = 0;
  for (const [route, screens] of routes) {
    const keys = closure(entry);
    for (const screen of screens) closure(chunkOf(screen), keys);
    const bytes = size(keys);
    largest = Math.max(largest, bytes);
    const budget = route === '/login' ? 250 : 400;
    console.log(`| ${route} | ${kb(bytes)} | ≤ ${budget} KB ${bytes <= budget * 1024 ? 'met' : 'NOT met'} |`);
  }
  console.log(
    `largest initial load: ${kb(largest)} (budget 400 KB); every JS chunk together: ${kb(size(all))}`,
  );
} finally {
  fs.rmSync(outDir, { recursive: true, force: true });
}
