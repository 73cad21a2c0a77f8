import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Every source file (not tests) under `dir`, relative to src/. */
function sources(dir: string): string[] {
  return fs
    .readdirSync(path.join(SRC, dir), { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory()
        ? sources(path.join(dir, entry.name))
        : entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')
          ? [path.join(dir, entry.name)]
          : [],
    );
}

const read = (file: string) => fs.readFileSync(path.join(SRC, file), 'utf8');

describe('layers', () => {
  it.each(sources('services'))('%s imports nothing of the HTTP layer or the routes', (file) => {
    expect(read(file)).not.toMatch(/from '\.\.\/(http|routes)\//);
  });

  it.each([...sources('routes'), ...sources('http'), 'realtime.ts'])(
    '%s leaves SQL to the services',
    (file) => {
      expect(read(file)).not.toMatch(/\bdb\(|\.db\b|\bdb\.raw\(|from 'knex'/);
    },
  );
});
