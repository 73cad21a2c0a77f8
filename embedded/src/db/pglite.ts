// PGlite as the all-in-one process runs it. Measured in bench/memory: a PGlite with Postgres'
// default settings idles at ≈ 235 MB resident, and a new data folder costs ≈ 450 MB more that the
// process never gets back (initdb runs a second PGlite and keeps a tarball of the new cluster in
// memory); `npm start` has two of them.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';

/**
 * Postgres touches all of its shared buffers at start, so the default 128 MB stay resident. The
 * platform's tables are small and PGlite's files sit in the OS page cache anyway: 16 MB saves
 * ≈ 110 MB per database (a smaller figure saved nothing more measurable).
 */
export const PGLITE_START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'];

/** A PGlite on `dir` (omitted: in memory) with the platform's settings. */
export function openPGlite(dir?: string): PGlite {
  return new PGlite({ ...(dir ? { dataDir: dir } : {}), startParams: PGLITE_START_PARAMS });
}

const INITDB = `
const [module, dir, params] = process.argv.slice(1);
require(module).PGlite.create(dir, { startParams: JSON.parse(params) }).then((db) => db.close());
`;

/**
 * Creates the database files of a new folder in a short-lived child process, whose memory leaves
 * with it, so that this process only ever reopens an existing cluster. The files are made beside
 * the folder and renamed into place, so an interrupted first start leaves no half-made cluster.
 * No-op for an existing one.
 */
export async function initPGliteDir(dir: string): Promise<void> {
  if (fs.existsSync(path.join(dir, 'PG_VERSION'))) return;
  const staging = `${dir}.new`;
  fs.rmSync(staging, { recursive: true, force: true });
  fs.mkdirSync(staging, { recursive: true });
  const pglite = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  await new Promise<void>((resolve, reject) =>
    execFile(
      process.execPath,
      ['-e', INITDB, pglite, staging, JSON.stringify(PGLITE_START_PARAMS)],
      (error, _stdout, stderr) =>
        error
          ? reject(new Error(`cannot create the database in ${dir}: ${stderr}`, { cause: error }))
          : resolve(),
    ),
  );
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(staging, dir);
}
