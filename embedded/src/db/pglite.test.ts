import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { initPGliteDir, openPGlite } from './pglite.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-pglite-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('the platform PGlite', () => {
  it('creates a new folder in a child process, then this process reopens it with small shared buffers', async () => {
    const dir = path.join(tmp, 'new', 'pglite');
    // What an interrupted first start leaves behind is started over.
    fs.mkdirSync(`${dir}.new`, { recursive: true });
    fs.writeFileSync(path.join(`${dir}.new`, 'half-made'), '');
    await initPGliteDir(dir);
    expect(fs.existsSync(path.join(dir, 'PG_VERSION'))).toBe(true);
    expect(fs.existsSync(`${dir}.new`)).toBe(false);

    const db = openPGlite(dir);
    try {
      await db.exec('create table kept (v text); insert into kept values ($$one$$)');
      const { rows } = await db.query<{ shared_buffers: string }>('show shared_buffers');
      expect(rows[0]!.shared_buffers).toBe('16MB');
    } finally {
      await db.close();
    }
    await initPGliteDir(dir); // an existing cluster is left as it is
    const again = openPGlite(dir);
    try {
      expect((await again.query<{ v: string }>('select v from kept')).rows).toEqual([{ v: 'one' }]);
    } finally {
      await again.close();
    }
  }, 120_000);
});
