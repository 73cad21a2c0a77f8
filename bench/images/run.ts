// Image figures on the bwrap runtime's path, with the Debian minbase + python3 image hack/images builds
// (one ~56 MB gzip layer) served by Debian's docker-registry on loopback:
//  - cold: pull (registry → layout at <data>/images, digests checked) + unpack (layer → root), fresh folders;
//  - warm: a new provider over the filled layout and root cache (a restarted platform's first step);
//  - step start in that image: Runtime.start to the exit of `true`, bwrap, spaced and back to back
//    (each step gets a copy of the image root: bwrap 0.8 has no overlay).
// Usage: npx tsx bench/images/run.ts [cold rounds=3] [steps=15]
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { BwrapRuntime, overlaySupported, type Runtime, type StepSpec } from '@sandflow/embedded/runner';
import { ROOT } from '@sandflow/embedded/testing';
import {
  LayoutStore,
  RegistryStore,
  copyImage,
  machineArchitecture,
  parseReference,
  pullImage,
  storeRootfsProvider,
} from '@sandflow/images';
import { startRegistry } from '@sandflow/images/testing';

const ROUNDS = Number(process.argv[2] ?? 3);
const STEPS = Number(process.argv[3] ?? 15);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-images-'));
const arch = machineArchitecture() === 'arm64' ? 'arm' : 'amd64';
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const f = (x: number) => x.toFixed(0);
const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

const { stdout } = await promisify(execFile)(
  process.execPath,
  ['--import', 'tsx', 'hack/images/debian-python.ts'],
  {
    cwd: ROOT,
  },
);
const built = JSON.parse(stdout.trim().split('\n').pop()!) as {
  oci: string;
  reference: string;
  layerBytes: number;
};
const [repository, tag] = built.reference.split(':') as [string, string];
const registry = await startRegistry();
await copyImage({
  from: new LayoutStore(built.oci),
  fromRepository: repository,
  reference: tag,
  to: new RegistryStore({ host: registry.host }),
  toRepository: repository,
  tag,
});
const image = `${registry.host}/${repository}:${tag}`;
console.log(`image ${image}: one layer of ${(built.layerBytes / 1e6).toFixed(1)} MB; load average ${load()}`);

const cold: { pull: number; unpack: number }[] = [];
let data = '';
for (let i = 0; i < ROUNDS; i++) {
  data = path.join(tmp, `data-${i}`);
  const layout = new LayoutStore(path.join(data, 'images'));
  const t0 = performance.now();
  await pullImage(parseReference(image), layout, arch);
  const t1 = performance.now();
  await storeRootfsProvider({ layout, cacheDir: path.join(data, 'image-roots') })(image, arch);
  cold.push({ pull: t1 - t0, unpack: performance.now() - t1 });
  if (i < ROUNDS - 1) fs.rmSync(data, { recursive: true, force: true });
}
const warm: number[] = [];
for (let i = 0; i < 5; i++) {
  const provider = storeRootfsProvider({
    layout: new LayoutStore(path.join(data, 'images')),
    cacheDir: path.join(data, 'image-roots'),
  });
  const t0 = performance.now();
  await provider(image, arch);
  warm.push(performance.now() - t0);
}
await registry.stop();

function once(rt: Runtime, spec: StepSpec): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const out = rt.start(spec, (h) => {
      if (h.result?.phase !== 'Succeeded') reject(new Error(`${h.result?.phase} ${h.result?.message ?? ''}`));
      else resolve(performance.now() - t0);
      rt.forget(spec.pod);
    });
    if ('pending' in out) reject(new Error(out.pending));
  });
}
const steps: Record<string, number[]> = {};
// The copy of a Debian root takes seconds, so it gets a few steps only.
for (const [mode, overlay, count] of [
  ['overlay root', true, STEPS],
  ['copied root', false, 3],
] as const) {
  if (overlay && !overlaySupported()) continue;
  const rt = new BwrapRuntime({
    root: path.join(data, 'runs'),
    overlay,
    rootfs: storeRootfsProvider({
      layout: new LayoutStore(path.join(data, 'images')),
      cacheDir: path.join(data, 'image-roots'),
    }),
  });
  for (const [label, gap] of [
    ['back to back', 0],
    ['500 ms apart', 500],
  ] as const) {
    const xs: number[] = (steps[`${mode}, ${label}`] = []);
    for (let i = 0; i < count + 2; i++) {
      if (gap) await new Promise((r) => setTimeout(r, gap));
      const t = await once(rt, {
        pod: `${mode.length}-${gap}-${i}`,
        namespace: 'bench',
        workflow: 'images',
        command: ['true'],
        env: {},
        captureResult: false,
        requests: { cpu: 0, memory: 0 },
        image,
      });
      if (i >= 2) xs.push(t);
    }
  }
  await rt.close();
}

const sum = cold.map((c) => c.pull + c.unpack);
console.log(`cold pull + unpack, ${ROUNDS} rounds (fresh layout and root cache each):`);
console.log(
  `  pull   median ${f(
    pct(
      cold.map((c) => c.pull),
      50,
    ),
  )} ms   unpack median ${f(
    pct(
      cold.map((c) => c.unpack),
      50,
    ),
  )} ms   total median ${f(pct(sum, 50))} ms (min ${f(Math.min(...sum))}, max ${f(Math.max(...sum))})`,
);
console.log(`warm (new provider, image in layout and root cache): median ${pct(warm, 50).toFixed(1)} ms`);
for (const [label, xs] of Object.entries(steps))
  console.log(
    `bwrap step in the image, ${label}: p50 ${f(pct(xs, 50))} ms  p95 ${f(pct(xs, 95))} ms (${xs.length} steps)`,
  );
console.log(`load average after: ${load()}`);
fs.rmSync(tmp, { recursive: true, force: true });
