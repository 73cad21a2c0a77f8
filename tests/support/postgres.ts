// Debian's PostgreSQL for the suites that run a throwaway cluster of their own (initdb, pg_ctl in a
// temp folder): the newest /usr/lib/postgresql/*/bin, and running its tools as `postgres` when the
// tests run as root (initdb refuses root).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const sh = promisify(execFile);

export const POSTGRES_ROOT = '/usr/lib/postgresql';

/** The newest installed version's bin folder, or '' when none is installed. */
export const POSTGRES_BIN = (() => {
  const versions = fs.existsSync(POSTGRES_ROOT)
    ? fs
        .readdirSync(POSTGRES_ROOT)
        .filter((v) => fs.existsSync(path.join(POSTGRES_ROOT, v, 'bin', 'pg_ctl')))
        .sort((a, b) => Number(a) - Number(b))
    : [];
  return versions.length ? path.join(POSTGRES_ROOT, versions.at(-1)!, 'bin') : '';
})();

/** Runs a PostgreSQL tool, as the `postgres` user when we are root (2 minutes at most). */
export const asPostgres = (command: string[]) =>
  process.getuid?.() === 0
    ? sh('su', ['postgres', '-s', '/bin/sh', '-c', command.map((a) => `'${a}'`).join(' ')], {
        timeout: 120_000,
      })
    : sh(command[0]!, command.slice(1), { timeout: 120_000 });
