// Builds the tiny busybox-static base image (see images/src/rootfs-busybox.ts):
//   npx tsx hack/images/busybox.ts [out-dir]   →   <out-dir>/oci (OCI image layout), <out-dir>/unpacked
// Point SANDFLOW_IMAGES_DIR at <out-dir>/unpacked to run steps in it with SANDFLOW_RUNTIME=bwrap.
import path from 'node:path';
import { buildBusyboxImage } from '@sandflow/images';

const out = path.resolve(process.argv[2] ?? '.data/images-unpacked/busybox');
buildBusyboxImage(out).then(
  (b) =>
    console.log(
      `${b.reference} (${b.architecture}) ${b.manifestDigest}\n  oci layout: ${b.oci}\n  unpacked:   ${b.unpacked}`,
    ),
  (e: unknown) => {
    console.error((e as Error).message);
    process.exit(1);
  },
);
