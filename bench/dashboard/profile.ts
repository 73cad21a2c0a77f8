// A CPU profile of the page's first render, recorded through the Chrome DevTools Protocol, and its
// summary: the functions with the most self time (their own code) and total time (with what they call).
import fs from 'node:fs';
import type { Page } from 'playwright-core';

/** One node of a V8 `.cpuprofile` (Profiler.Profile of the DevTools Protocol). */
export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

/** Starts V8's sampling profiler in the page (0.1 ms interval); the returned stop gives the profile. */
export async function startProfile(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
  await cdp.send('Profiler.start');
  return async (file?: string) => {
    const { profile } = (await cdp.send('Profiler.stop')) as unknown as { profile: CpuProfile };
    await cdp.detach();
    if (file) fs.writeFileSync(file, JSON.stringify(profile));
    return profile;
  };
}

/** `name (file:line)`; the file without its origin and hash-free enough to read. */
function frameKey(f: ProfileNode['callFrame']) {
  const file = f.url.replace(/^https?:\/\/[^/]+\//, '').replace(/\?.*$/, '');
  const where = file ? ` ${file}:${f.lineNumber + 1}` : '';
  return `${f.functionName || '(anonymous)'}${where}`;
}

export interface ProfileRow {
  fn: string;
  self: number;
  total: number;
}

/**
 * Self time (samples whose leaf is the function) and total time (samples with the function anywhere
 * on the stack, counted once per sample however deep the recursion), in ms, largest first.
 */
export function summarize(
  profile: CpuProfile,
  top = 25,
): { self: ProfileRow[]; total: ProfileRow[]; ms: number } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  let ms = 0;
  for (let i = 0; i < samples.length; i++) {
    // A sample's time is the delta to the next one (the last sample's is unknown: 0).
    const dt = (deltas[i + 1] ?? 0) / 1000;
    ms += dt;
    const leaf = byId.get(samples[i]!)!;
    const leafKey = frameKey(leaf.callFrame);
    self.set(leafKey, (self.get(leafKey) ?? 0) + dt);
    const onStack = new Set<string>();
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id))
      onStack.add(frameKey(byId.get(id)!.callFrame));
    for (const k of onStack) total.set(k, (total.get(k) ?? 0) + dt);
  }
  const rows = (by: Map<string, number>) =>
    [...by.keys()]
      .map((fn) => ({ fn, self: self.get(fn) ?? 0, total: total.get(fn) ?? 0 }))
      .sort((a, b) => by.get(b.fn)! - by.get(a.fn)!)
      .slice(0, top);
  return { self: rows(self), total: rows(total), ms };
}

export function printSummary(title: string, profile: CpuProfile, top = 25) {
  const { self, total, ms } = summarize(profile, top);
  const line = (r: ProfileRow) =>
    `  ${r.self.toFixed(1).padStart(8)} ${r.total.toFixed(1).padStart(8)}  ${r.fn.slice(0, 140)}`;
  console.log(`\n${title}: ${ms.toFixed(0)} ms sampled`);
  console.log(`top self time (ms):\n      self    total  function`);
  for (const r of self) console.log(line(r));
  console.log(`top total time (ms):\n      self    total  function`);
  for (const r of total) console.log(line(r));
}
