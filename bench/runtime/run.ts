// Step start latency of the bwrap runtime against the process runtime, in one run on one machine:
// the time from Runtime.start to the step's exit for `true` (so it is start + teardown), and for the
// bwrap runtime the same in the busybox-static image built by hack/images, with the step's root as an
// overlay (where the kernel allows it) and as a copy.
//   npx tsx bench/runtime/run.ts [steps per runtime, default 40] [ms between steps, default 0]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildBusyboxImage, localRootfsProvider } from '@sandflow/images';
import {
  BwrapRuntime,
  ProcessRuntime,
  overlaySupported,
  type Runtime,
  type StepSpec,
} from '@sandflow/embedded/runner';

const n = Number(process.argv[2] ?? 40);
const gap = Number(process.argv[3] ?? 0);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-runtime-'));

function once(rt: Runtime, spec: StepSpec): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const out = rt.start(spec, (h) => {
      if (h.result?.phase !== 'Succeeded')
        reject(new Error(`${rt.name}: ${h.result?.phase} ${h.result?.message ?? ''}`));
      else resolve(performance.now() - t0);
      rt.forget(spec.pod);
    });
    if ('pending' in out) reject(new Error(out.pending));
  });
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

async function measure(rt: Runtime, image?: string) {
  const times: number[] = [];
  for (let i = 0; i < n + 3; i++) {
    const spec: StepSpec = {
      pod: `p${i}`,
      namespace: 'bench',
      workflow: rt.name,
      command: ['true'],
      env: {},
      captureResult: false,
      requests: { cpu: 0, memory: 0 },
      ...(image ? { image } : {}),
    };
    if (gap > 0) await new Promise((r) => setTimeout(r, gap));
    const t = await once(rt, spec);
    if (i >= 3) times.push(t); // the first ones warm the page cache
  }
  return { p50: pct(times, 50), p95: pct(times, 95) };
}

const image = await buildBusyboxImage(path.join(tmp, 'images'));
const proc = await measure(new ProcessRuntime({ root: path.join(tmp, 'runs') }));
const bwrapRuntime = (overlay: boolean) =>
  new BwrapRuntime({ root: path.join(tmp, 'runs'), rootfs: localRootfsProvider(image.unpacked), overlay });
const overlay = overlaySupported() ? await measure(bwrapRuntime(true), image.reference) : undefined;
const bwrap = await measure(bwrapRuntime(false), image.reference);
const f = (x: number) => x.toFixed(1);
console.log(`steps per runtime: ${n} (\`true\`, start to exit), ${gap} ms between steps`);
console.log(`process  p50 ${f(proc.p50)} ms  p95 ${f(proc.p95)} ms`);
if (overlay)
  console.log(
    `bwrap, overlay root  p50 ${f(overlay.p50)} ms  p95 ${f(overlay.p95)} ms  (+${f(overlay.p50 - proc.p50)} ms at p50)`,
  );
else console.log('bwrap, overlay root: not supported here');
console.log(
  `bwrap, copied root   p50 ${f(bwrap.p50)} ms  p95 ${f(bwrap.p95)} ms  (+${f(bwrap.p50 - proc.p50)} ms at p50)`,
);
console.log(
  `load average: ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
fs.rmSync(tmp, { recursive: true, force: true });
