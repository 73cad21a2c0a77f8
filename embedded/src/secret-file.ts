import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * A secret that belongs to a data folder: made once (mode 0600) and read back on
 * every start, so tokens and sessions survive restarts. Without a folder, a fresh one.
 */
export function loadOrCreateSecret(dataDir: string | undefined, fileName: string, bytes = 32): string {
  if (!dataDir) return randomBytes(bytes).toString('base64url');
  const file = path.join(dataDir, fileName);
  try {
    const existing = fs.readFileSync(file, 'utf8').trim();
    if (existing) return existing;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`cannot read ${file}`, { cause: e });
  }
  const secret = randomBytes(bytes).toString('base64url');
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}
