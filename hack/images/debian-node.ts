// A Debian trixie minbase image with Debian's Node.js (20.19, what the application needs at least)
// and ca-certificates (mmdebstrap) as a one-layer OCI image layout, once per machine, cached under
// .cache/images/debian-node-<key>/oci (see debian-image.ts): the base hack/image/build.ts appends
// the application onto where Docker Hub's node:20-slim cannot be pulled.
//   npx tsx hack/images/debian-node.ts [--cache <dir>]   →   one JSON line: reference, oci, digests
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DOCS_LEFT_OUT, debianImage, debianImageMain, type DebianImage } from './debian-image.js';

export const DEBIAN_NODE_SUITE = 'trixie';
export const DEBIAN_NODE_REFERENCE = `sandflow/debian-node:${DEBIAN_NODE_SUITE}`;
const RECIPE = {
  version: 1,
  suite: DEBIAN_NODE_SUITE,
  variant: 'minbase',
  include: ['nodejs', 'ca-certificates'],
  dpkgopt: DOCS_LEFT_OUT,
};

/** The cached image, built first when this machine has none; concurrent callers wait for one build. */
export function debianNodeImage(cacheDir?: string): Promise<DebianImage> {
  return debianImage(
    {
      name: 'debian-node',
      reference: DEBIAN_NODE_REFERENCE,
      recipe: RECIPE,
      cmd: ['node'],
      builtBy: 'hack/images/debian-node.ts',
    },
    cacheDir,
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1]))
  debianImageMain(debianNodeImage);
