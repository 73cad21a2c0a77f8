// Builds the console (vite build) when console/dist is missing or older than its sources,
// so `npm start` always serves what is checked out without rebuilding every time.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const consoleDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stamp = path.join(consoleDir, 'dist/.vite/manifest.json');
const sources = ['src', 'public', 'index.html', 'vite.config.ts', 'package.json'];

function newestMtime(target: string): number {
  const stat = fs.statSync(target, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(
    stat.mtimeMs,
    ...fs.readdirSync(target).map((entry) => newestMtime(path.join(target, entry))),
  );
}

export function consoleIsStale(): boolean {
  const built = fs.statSync(stamp, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  return Math.max(...sources.map((s) => newestMtime(path.join(consoleDir, s)))) > built;
}

export async function buildConsoleIfStale(): Promise<boolean> {
  if (!consoleIsStale()) return false;
  console.log('building the console (console/dist)…');
  await build({ root: consoleDir, logLevel: 'warn', configFile: path.join(consoleDir, 'vite.config.ts') });
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1]))
  await buildConsoleIfStale();
