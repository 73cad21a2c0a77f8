// Puts the base images hack/images builds into the platform's local store, so that an offline
// machine can build sandboxes and run steps: the sandbox page then offers
//   sandflow.local/busybox       (busybox-static; always)
//   sandflow.local/debian-python (Debian minbase + python3; when mmdebstrap and a Debian mirror work)
//   npx tsx hack/images/local.ts [--no-debian]     (npm run images:local)
// The store is $SANDFLOW_DATA_DIR/images (default .data/images), the folder `npm start` uses.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildBusyboxImage, copyImage, LayoutStore } from '@sandflow/images';
import { debianPythonImage } from './debian-python.js';

const LOCAL = 'sandflow.local';

async function importLayout(ociDir: string, from: string, to: string, tag: string, store: LayoutStore) {
  const source = new LayoutStore(ociDir);
  const [repository, reference] = splitReference(from);
  const copied = await copyImage({
    from: source,
    fromRepository: repository,
    reference,
    to: store,
    toRepository: `${LOCAL}/${to}`,
    tag,
  });
  console.log(`${LOCAL}/${to}:${tag}  ${copied.digest}`);
}

function splitReference(reference: string): [string, string] {
  const colon = reference.lastIndexOf(':');
  return [reference.slice(0, colon), reference.slice(colon + 1)];
}

async function main() {
  const dataDir = path.resolve(process.env.SANDFLOW_DATA_DIR ?? '.data');
  const store = new LayoutStore(path.join(dataDir, 'images'));
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-images-'));
  try {
    const busybox = await buildBusyboxImage(scratch);
    await importLayout(busybox.oci, busybox.reference, 'busybox', 'latest', store);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  if (process.argv.includes('--no-debian')) return;
  try {
    const debian = await debianPythonImage();
    await importLayout(debian.oci, debian.reference, 'debian-python', 'bookworm', store);
  } catch (error) {
    // busybox is enough to start; the Debian image needs mmdebstrap and a reachable mirror.
    console.warn(`sandflow.local/debian-python skipped: ${(error as Error).message}`);
  }
}

main().catch((error: unknown) => {
  console.error((error as Error).message);
  process.exit(1);
});
