// A Debian bookworm minbase image with python3 (mmdebstrap) as a one-layer OCI image layout, once
// per machine, cached under .cache/images/debian-python-<key>/oci (see debian-image.ts).
//   npx tsx hack/images/debian-python.ts [--cache <dir>]   →   one JSON line: reference, oci, digests
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DOCS_LEFT_OUT, debianImage, debianImageMain, type DebianImage } from './debian-image.js';

export const DEBIAN_PYTHON_REFERENCE = 'sandflow/debian-python:bookworm';
const RECIPE = {
  version: 1,
  suite: 'bookworm',
  variant: 'minbase',
  include: ['python3'],
  dpkgopt: DOCS_LEFT_OUT,
};

export type DebianPythonImage = DebianImage;

/** The cached image, built first when this machine has none; concurrent callers wait for one build. */
export function debianPythonImage(cacheDir?: string): Promise<DebianPythonImage> {
  return debianImage(
    {
      name: 'debian-python',
      reference: DEBIAN_PYTHON_REFERENCE,
      recipe: RECIPE,
      cmd: ['python3'],
      builtBy: 'hack/images/debian-python.ts',
    },
    cacheDir,
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1]))
  debianImageMain(debianPythonImage);
