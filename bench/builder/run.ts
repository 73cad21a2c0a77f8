// Commit + push of a 10 MB change made in a sandbox builder: the change is one file written into
// the container (random bytes, which gzip cannot shrink, or text, which it can), committed as one
// layer appended to the busybox-static image of hack/images and pushed to Debian's docker-registry
// on 127.0.0.1 (the source layers are mounted there, not uploaded) or to the local image layout.
// Each commit is of a fresh container, so no blob is ever already at the target. The time of
// `changes` (the diff alone) is printed beside the commit's (diff + gzip layer + push).
//   npx tsx bench/builder/run.ts [commits per case, default 5] [MiB, default 10]
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import {
  BUSYBOX_REFERENCE,
  LayoutStore,
  RegistryStore,
  buildBusyboxImage,
  copyImage,
  machineArchitecture,
} from '@sandflow/images';
import { startRegistry } from '@sandflow/images/testing';
import { BwrapBuilder } from '@sandflow/embedded/builder';

const n = Number(process.argv[2] ?? 5);
const mib = Number(process.argv[3] ?? 10);
const size = mib * 1024 * 1024;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-builder-'));
const arch = machineArchitecture() === 'arm64' ? 'arm' : 'amd64';

const WORDS =
  'the quick brown fox jumps over a lazy dog while sandflow builds images from busybox and debian'.split(' ');
function text(bytes: number): Buffer {
  const lines: string[] = [];
  let total = 0;
  for (let i = 0; total < bytes; i++) {
    const line = `${i} ${Array.from({ length: 12 }, () => WORDS[Math.floor(Math.random() * WORDS.length)]).join(' ')}\n`;
    lines.push(line);
    total += line.length;
  }
  return Buffer.from(lines.join('')).subarray(0, bytes);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const registry = await startRegistry();
try {
  const built = await buildBusyboxImage(path.join(tmp, 'hack-images'));
  const [repository, tag] = BUSYBOX_REFERENCE.split(':') as [string, string];
  await copyImage({
    from: new LayoutStore(built.oci),
    fromRepository: repository,
    reference: tag,
    to: new RegistryStore({ host: registry.host }),
    toRepository: repository,
    tag,
  });
  const image = `${registry.host}/${BUSYBOX_REFERENCE}`;
  const builder = new BwrapBuilder({ dataDir: path.join(tmp, 'data') });
  const cases = [
    { content: 'random', make: () => randomBytes(size), target: 'registry' },
    { content: 'text', make: () => text(size), target: 'registry' },
    { content: 'random', make: () => randomBytes(size), target: 'layout' },
    { content: 'text', make: () => text(size), target: 'layout' },
  ];
  console.log(`${n} commits per case of one ${mib} MiB file, each from a fresh container`);
  for (const c of cases) {
    const times: number[] = [];
    const starts: number[] = [];
    const diffs: number[] = [];
    let layerSize = 0;
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      const { id } = await builder.start({
        image,
        architecture: arch,
        uid: 0,
        gid: 0,
        owner: 'bench',
        organization: 'bench',
      });
      starts.push(performance.now() - t0);
      await builder.writeFile(id, '/data/change.bin', Readable.from([c.make()]));
      const reference =
        c.target === 'registry'
          ? `${registry.host}/bench/saved:${c.content}-${i}`
          : `bench-saved:${c.content}-${i}`;
      const t2 = performance.now();
      await builder.changes(id);
      diffs.push(performance.now() - t2);
      const t1 = performance.now();
      const result = await builder.commit(id, { reference });
      times.push(performance.now() - t1);
      layerSize = result.layer.size;
      await builder.stop(id);
    }
    console.log(
      `${c.target.padEnd(8)} ${c.content.padEnd(6)} layer ${(layerSize / 1048576).toFixed(1)} MiB  commit median ${median(times).toFixed(0)} ms  (min ${Math.min(...times).toFixed(0)}, max ${Math.max(...times).toFixed(0)})  diff (changes) median ${median(diffs).toFixed(0)} ms  container start median ${median(starts).toFixed(0)} ms`,
    );
  }
  await builder.close();
} finally {
  await registry.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
}
