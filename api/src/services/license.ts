import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** The repository root (api/src/services → ../../..), where LICENSE and the root package.json live. */
export const REPOSITORY_ROOT = path.resolve(HERE, '../../..');
/** The API package, for an installation that ships it without the repository root. */
const API_PACKAGE_ROOT = path.resolve(HERE, '../..');

export interface ProductLicense {
  /** SPDX identifier, from package.json `license`. */
  id: string;
  /** The license's name, from the heading of the LICENSE file (else the SPDX id). */
  name: string;
  /** The SPDX list page of the license. */
  url: string;
  /** The product (package.json `name`) and its version. */
  product: string;
  version: string;
  /** The LICENSE file; null when it is not shipped. */
  text: string | null;
}

interface PackageJson {
  name?: unknown;
  version?: unknown;
  license?: unknown;
}

/**
 * The name a license file gives itself: its first line, with the version of a second
 * line such as "Version 2.0, January 2004" appended ("Apache License 2.0"), as SPDX names it.
 */
export function licenseHeading(text: string): string | null {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  const title = lines[0];
  if (!title) return null;
  const version = /^version\s+(\d+(?:\.\d+)*)\b/i.exec(lines[1] ?? '')?.[1];
  return version ? `${title} ${version}` : title;
}

/** What GET /illumina/license answers, from the package.json and LICENSE contents. */
export function describeLicense(pkg: PackageJson, text: string | null): ProductLicense {
  const id = typeof pkg.license === 'string' && pkg.license.trim() ? pkg.license.trim() : 'UNLICENSED';
  const spdx = /^[A-Za-z0-9.+-]+$/.test(id) && id !== 'UNLICENSED';
  return {
    id,
    name: (text && licenseHeading(text)) ?? id,
    url: spdx ? `https://spdx.org/licenses/${id}.html` : '',
    product: typeof pkg.name === 'string' ? pkg.name : 'sandflow',
    version: typeof pkg.version === 'string' ? pkg.version : '0.0.0',
    text,
  };
}

const readOrNull = (file: string) => fs.readFile(file, 'utf8').catch(() => null);

/** Reads root/package.json and root/LICENSE (LICENSE.md, LICENSE.txt). */
export async function readLicense(root: string = REPOSITORY_ROOT): Promise<ProductLicense> {
  const pkgText = await readOrNull(path.join(root, 'package.json'));
  if (pkgText === null) throw new Error(`no package.json in ${root}`);
  let text: string | null = null;
  for (const name of ['LICENSE', 'LICENSE.md', 'LICENSE.txt']) {
    text = await readOrNull(path.join(root, name));
    if (text !== null) break;
  }
  return describeLicense(JSON.parse(pkgText) as PackageJson, text);
}

let cached: Promise<ProductLicense> | undefined;

/** The repository's license (else the API package's), read once per process. */
export function productLicense(): Promise<ProductLicense> {
  cached ??= readLicense(REPOSITORY_ROOT)
    .catch(() => readLicense(API_PACKAGE_ROOT))
    .catch((error: unknown) => {
      cached = undefined;
      throw error;
    });
  return cached;
}
