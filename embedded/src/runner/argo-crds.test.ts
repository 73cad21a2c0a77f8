// The vendored Argo CRDs must stay upstream's bytes: a local edit (such as enabling a status
// subresource Argo does not have) would let the runner and the operator depend on an API a real
// cluster does not serve. The sums in the README are upstream's; CI may lack ../shared, so they
// are what is checked everywhere, and the files themselves where that folder is present.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const DIR = fileURLToPath(new URL('../../argo-crds/', import.meta.url));
const UPSTREAM = fileURLToPath(new URL('../../../../shared/argo/crds/', import.meta.url));

const recorded = [
  ...fs
    .readFileSync(path.join(DIR, 'README.md'), 'utf8')
    .matchAll(/`(argoproj\.io_\w+\.yaml)`\s*\|\s*`([0-9a-f]{64})`/g),
].map((m) => ({ file: m[1]!, sha256: m[2]! }));
const sha256 = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

describe('vendored Argo CRDs', () => {
  it('the README records a sum for every vendored file', () => {
    const vendored = fs.readdirSync(DIR).filter((f) => f.endsWith('.yaml'));
    expect(recorded.map((r) => r.file).sort()).toEqual(vendored.sort());
    expect(vendored).toHaveLength(2);
  });

  it.each(recorded)('$file has upstream’s sha256', ({ file, sha256: want }) => {
    expect(sha256(path.join(DIR, file))).toBe(want);
  });

  it.runIf(fs.existsSync(UPSTREAM)).each(recorded)(
    '$file is byte-identical to ../shared/argo/crds',
    ({ file }) => {
      expect(fs.readFileSync(path.join(DIR, file)).equals(fs.readFileSync(path.join(UPSTREAM, file)))).toBe(
        true,
      );
    },
  );
});
