// bench:dashboard — opens the run dashboard of a 5,000-sandbox run (and a 1,000 one) in Chromium,
// through the same route and API calls a person's browser makes: the platform of platform.ts, the
// workflow saved with POST /workflow, a run started with POST /session/instance and stopped at once
// with PUT /run (the benchmark is about drawing the run, not executing 5,000 steps), then
// /dashboard/session/{uuid}/{run} opened.
// Measured: time to first render (navigation → first sandbox node of the run drawn), and the frame
// time while panning with the mouse (rAF intervals during a 60-step drag of the pane).
// Target (issue 15): < 2 s to first render.
// Options: `--profile <prefix>` records a CPU profile of each first render (navigation → first node
// drawn) through the DevTools Protocol into `<prefix>-<nodes>.cpuprofile` (open it in Chrome's
// DevTools; keep it out of git) and prints its top self- and total-time functions; the console is
// then built unminified (still a production build) so the functions keep their names.
// `--console <dir>` serves that console build instead of building one (to compare commits);
// `--sizes 1000,5000` chooses the runs.
import os from 'node:os';
import { parseArgs } from 'node:util';
import { chromium, type Page } from 'playwright-core';
import { handleOffsets } from './handles.js';
import { api, EMAIL, layeredGraph, PASSWORD, seed, startPlatform } from './platform.js';
import { printSummary, startProfile } from './profile.js';

const { values: options } = parseArgs({
  options: {
    profile: { type: 'string' },
    console: { type: 'string' },
    sizes: { type: 'string', default: '1000,5000' },
  },
});
const SIZES = options.sizes.split(',').map(Number);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)]!;

async function measure(page: Page, url: string, profileFile?: string) {
  const stopProfile = profileFile ? await startProfile(page) : undefined;
  const answered = page.waitForResponse((r) => r.url().includes('/api/v0/run/'), { timeout: 120_000 });
  const start = Date.now();
  await page.goto(url);
  await (await answered).finished();
  const runAnswered = Date.now() - start;
  // The page has the run (its title and status are drawn) before React Flow has drawn a node.
  await page.waitForSelector('h1', { timeout: 120_000 });
  const titled = Date.now() - start;
  await page.waitForSelector('.react-flow__node-runSandbox', { timeout: 120_000 });
  const firstRender = Date.now() - start;
  if (stopProfile)
    printSummary(`profile of the first render (${profileFile})`, await stopProfile(profileFile));
  const drawn = await page.locator('.react-flow__node-runSandbox').count();
  console.log(
    `handles of a drawn node, as React Flow measures them: ${await handleOffsets(page, 'runSandbox')}`,
  );
  const pane = (await page.locator('.react-flow__pane').boundingBox())!;
  // A string, not a function: tsx's name-keeping helper (__name) does not exist in the page.
  await page.evaluate(`(() => {
    window.frames_ = [];
    window.recording = true;
    let last = performance.now();
    const tick = () => {
      const now = performance.now();
      window.frames_.push(now - last);
      last = now;
      if (window.recording) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  })()`);
  // The drag starts in fitView's padding, where the pane (not a node) is under the pointer.
  await page.mouse.move(pane.x + 6, pane.y + 6);
  await page.mouse.down();
  for (let i = 1; i <= 60; i++) await page.mouse.move(pane.x + 6 + i * 8, pane.y + 6 + i * 4);
  await page.mouse.up();
  const frames = (await page.evaluate(
    '(() => { window.recording = false; return window.frames_.slice(1); })()',
  )) as number[];
  return { runAnswered, titled, firstRender, drawn, frameMedian: median(frames), frameP95: p95(frames) };
}

async function main() {
  const platform = await startPlatform({
    consoleDir: options.console,
    minify: options.profile === undefined,
  });
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox'],
  });
  try {
    const { cookie, ids, me, group } = await seed(platform.url, platform.dataDir);
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(`${platform.url}/login`);
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForURL(/dashboard/);
    const rows = [];
    for (const nodes of SIZES) {
      const graph = layeredGraph(nodes, ids, me);
      const saved = await api(platform.url, cookie, 'POST', '/workflow', {
        name: `bench_${nodes}`,
        version: '1.0.0',
        tags: [],
        ...graph,
      });
      const workflow = (saved.result as { uuid: string }).uuid;
      const started = (
        await api(platform.url, cookie, 'POST', '/session/instance', {
          name: `bench_${nodes}`,
          workflow_uuid: workflow,
          group,
          schedules: [],
          events: [],
          attempts: 1,
          notifications: [],
          notify_group: false,
          notify_organization: false,
          session_variables: {},
          sandbox_resources: {},
          cluster_pref: [],
          has_cluster_pref: false,
        })
      ).result as { schedule_id: string; run_uuid: string };
      await api(platform.url, cookie, 'PUT', `/run/${started.run_uuid}`, { action: 'stop' }).catch(
        () => undefined,
      );
      const result = await measure(
        page,
        `${platform.url}/dashboard/session/${started.schedule_id}/${started.run_uuid}`,
        options.profile === undefined ? undefined : `${options.profile}-${nodes}.cpuprofile`,
      );
      const answered = (await api(platform.url, cookie, 'GET', `/run/${started.run_uuid}`)).result as {
        status: string;
        workflow: { nodes: unknown[] };
      };
      rows.push({
        nodes,
        edges: graph.edges.length,
        status: answered.status,
        inRun: answered.workflow.nodes.length,
        ...result,
      });
    }
    console.log(
      `load average ${os.loadavg()[0]!.toFixed(1)}, ${os.cpus().length} cores, console ${options.console ?? (options.profile ? 'built unminified' : 'built')}`,
    );
    console.log(
      '| run nodes / edges | run status | GET /run answered | title drawn | first render (first node) | pan frame median / p95 | drawn nodes |',
    );
    for (const r of rows)
      console.log(
        `| ${r.inRun} / ${r.edges} | ${r.status} | ${r.runAnswered} ms | ${r.titled} ms | ${r.firstRender} ms | ${r.frameMedian.toFixed(1)} / ${r.frameP95.toFixed(1)} ms | ${r.drawn} |`,
      );
  } finally {
    await browser.close();
    await platform.stop();
  }
}

await main();
