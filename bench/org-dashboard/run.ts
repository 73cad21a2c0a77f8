// bench:org-dashboard — the organization dashboard (/dashboard, console/src/features/dashboard) opened
// in Chromium over a month of records (issue 17: "POST /statistic/runs over 1 million recorded step
// executions across 50 groups for one month … dashboard first render in Chromium").
// `npm run bench:org-dashboard -- [repetitions=5] [steps=1000000]`.
// The platform of bench/dashboard/platform.ts (`embedded/src/main.ts`, a temp data folder, a fresh
// build of the console) on a real PostgreSQL: SANDFLOW_TEST_DATABASE_URL's server (a database created
// here) or a temp cluster of Debian's /usr/lib/postgresql started as bench/statistics does; PGlite in
// the data folder when neither exists or SANDFLOW_BENCH_DATABASE=pglite (the platform is stopped
// while the records go into its files, then started again). A founder registers an organization (its organization admin) and a
// group; then bench/statistics's seeding adds the other 49 groups and `steps` step executions (runs
// of 20 steps spread over October 2026) straight into run_records / step_records and fills the
// statistics_hourly rollup with the migration's backfill statement.
// Chromium (playwright-core, headless, 1400×900, timezone UTC) signs in as the organization admin.
// The page's Date starts at 2026-10-31 23:30 UTC, so the page's own default range ("one month back
// to the next hour") is exactly October; its default groups are the first 7. Each repetition, in a
// new tab of the signed-in context (the console's files in the HTTP cache after the first):
//  A. navigation to /dashboard → POST /statistic/runs sent and answered (resource timing), → the
//     first chart's svg in the DOM (any chart; the cluster usage pies come from /statistic/spike),
//     → the first Session Runs chart's svg, → every chart panel out of its loading state;
//  B. the same month for all 50 groups through the filter bar: the start input set after the end (no
//     request while the filter is invalid), the other 43 groups ticked in the groups select, then
//     the start input filled with 2026-10-01 00:00 → POST answered → first Session Runs chart drawn
//     → every panel out of loading.
// Times are read in the page (performance.now(); a mark is taken at the animation frame after the
// DOM change that completes it). Each answer is checked: its groups, their runs ended in October as
// the records have them, and the filter bar's inputs showing the month.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { chromium, type Page } from 'playwright-core';
import { createDatabase } from '@sandflow/embedded/testing';
import { EMAIL, PASSWORD, startPlatform } from '../dashboard/platform.js';
import {
  GROUPS,
  MONTH_END,
  MONTH_START,
  rollUp,
  seed,
  startPostgres,
  STEPS_PER_RUN,
} from '../statistics/run.js';

const REPETITIONS = Math.max(1, Number(process.argv[2] ?? '5'));
const STEPS = Number(process.argv[3] ?? '1000000');
const RUNS = Math.max(1, Math.round(STEPS / STEPS_PER_RUN));
const DEFAULT_GROUPS = 7; // the page's default selection (console/src/features/dashboard/shape.ts)
// Session Runs: outcomes, group runs, cpu/memory/disk; Cluster Managers: 3 usage pies, 3 line charts.
const PANELS = 11;
const NOW = '2026-10-31T23:30:00.000Z';
const AFTER_END = '2026-11-05T00:00';
const START_INPUT = '2026-10-01T00:00';
const FOUNDER = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  email: 'ada@org-dashboard.bench',
  password: 'Analytical-Engine-1843!',
  organization: 'Bench Analytics',
};
const RUNS_PATH = '/api/v0/statistic/runs';
const CHART_SVG = '.recharts-wrapper > svg.recharts-surface';
const SESSION_RUN_PANELS = ['chart-outcomes', 'chart-group-runs', 'chart-groups-']
  .map((id) => `section[data-testid^="${id}"][data-state="ready"] ${CHART_SVG}`)
  .join(', ');

// The page's Date starts at NOW and runs on from there. Not Playwright's clock: it fakes
// performance.now() and the resource timings too, which are what is measured here.
const CLOCK = `(() => {
  const RealDate = Date;
  const offset = ${Date.parse(NOW)} - RealDate.now();
  class BenchDate extends RealDate {
    constructor(...args) { if (args.length === 0) super(RealDate.now() + offset); else super(...args); }
    static now() { return RealDate.now() + offset; }
  }
  window.Date = BenchDate;
})()`;

// In-page marks (a string: tsx's name-keeping helper does not exist in the page).
const MARKS = `(() => {
  const marks = {};
  const pending = new Set();
  let loadingSeen = false;
  window.__orgdash = { marks, reset() { for (const k of Object.keys(marks)) delete marks[k]; pending.clear(); loadingSeen = false; } };
  const mark = (k) => {
    if (k in marks || pending.has(k)) return;
    pending.add(k);
    requestAnimationFrame(() => { if (pending.delete(k) && !(k in marks)) marks[k] = performance.now(); });
  };
  const check = () => {
    const panels = [...document.querySelectorAll('section[data-testid^="chart-"][data-state]')];
    if (panels.some((p) => p.getAttribute('data-state') === 'loading')) loadingSeen = true;
    if (document.querySelector('section[data-state="ready"] ${CHART_SVG}')) mark('anySvg');
    if (document.querySelector('${SESSION_RUN_PANELS}')) mark('runsSvg');
    if (loadingSeen && panels.length >= ${PANELS} && panels.every((p) => p.getAttribute('data-state') !== 'loading'))
      mark('settled');
  };
  new MutationObserver(check).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-state', 'class'] });
  document.addEventListener('input', (e) => {
    if (e.target && e.target.type === 'datetime-local' && !('input' in marks)) marks.input = performance.now();
  }, true);
})()`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

async function call<T>(url: string, method: string, route: string, body?: unknown, token?: string) {
  const response = await fetch(`${url}/api/v0${route}`, {
    method,
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${text.slice(0, 300)}`);
  return (JSON.parse(text) as { result: T }).result;
}

const login = async (url: string, email: string, password: string) =>
  (await call<{ access_token: string }>(url, 'POST', '/login', { username: email, password })).access_token;

/** The founder's organization (the founder its organization admin) and its first group, through the API. */
async function found(url: string) {
  await call(url, 'POST', '/user', { ...FOUNDER, use_invitation: false });
  const admin = await login(url, EMAIL, PASSWORD);
  const mails = await call<{ text: string }[]>(
    url,
    'GET',
    `/admin/outbox?to=${encodeURIComponent(FOUNDER.email)}`,
    undefined,
    admin,
  );
  const verification = /\/verification\/([\w-]+)/.exec(mails[0]?.text ?? '')?.[1];
  if (!verification) throw new Error('no verification link mailed to the founder');
  await call(url, 'GET', `/verify/${verification}`);
  const token = await login(url, FOUNDER.email, FOUNDER.password);
  const me = await call<{ id: string; role: string }>(url, 'GET', '/me', undefined, token);
  const organization = await call<{ id: string }>(url, 'GET', '/organization', undefined, token);
  await call(
    url,
    'POST',
    '/group',
    { organization: organization.id, name: 'Analytics', members: [FOUNDER.email] },
    token,
  );
  return { organization: organization.id, user: me.id, role: me.role };
}

/** The month's records with bench/statistics's seeding, the rollup, and the runs ended in it per group. */
async function fill(db: Knex, organization: string, user: string) {
  const started = performance.now();
  const groups = await seed(db, organization, user, RUNS);
  const seedMs = performance.now() - started;
  const rolled = await rollUp(db);
  const steps = await db('step_records').count<{ n: string }[]>({ n: '*' });
  const perGroup = (await db('run_records')
    .where('stopped_at', '>=', MONTH_START)
    .where('stopped_at', '<', MONTH_END)
    .groupBy('group_id')
    .select('group_id', db.raw('count(*)::int AS n'))) as { group_id: string; n: number }[];
  process.stdout.write(
    `seeded ${Number(steps[0]!.n).toLocaleString('en')} step executions of ${RUNS.toLocaleString('en')} runs ` +
      `in ${groups.length} groups in ${(seedMs / 1000).toFixed(1)} s; ${rolled.rows.toLocaleString('en')} ` +
      `statistics_hourly rows in ${(rolled.ms / 1000).toFixed(1)} s\n`,
  );
  return new Map(perGroup.map((g) => [g.group_id, g.n]));
}

interface Answer {
  result: { id: string; success: number; failed: number; stopped: number; cpu: unknown[] }[];
}

/**
 * The answer to the POST /statistic/runs the page sent (Chromium does not hand its fetch body to
 * Playwright): `groups` groups, each with the runs the records have ended in October and at most 31
 * points (daily: one per day with records); and the filter bar showing the month.
 */
async function checkRuns(page: Page, answer: Answer, groups: number, ended: Map<string, number>) {
  const range = [
    await page.getByLabel('Start', { exact: true }).inputValue(),
    await page.getByLabel('End', { exact: true }).inputValue(),
  ].join(' – ');
  const wrong = answer.result.filter(
    (g) => g.success + g.failed + g.stopped !== (ended.get(g.id) ?? 0) || g.cpu.length > 31,
  );
  if (answer.result.length !== groups || wrong.length > 0 || range !== '2026-10-01T00:00 – 2026-11-01T00:00')
    throw new Error(
      `unexpected POST /statistic/runs: ${answer.result.length} groups, ${wrong.length} of them not as ` +
        `recorded; the filter bar shows ${range}`,
    );
  return answer.result.reduce((sum, g) => sum + g.success + g.failed + g.stopped, 0);
}

/** The answer of the page's POST /statistic/runs for `groups` groups. */
const runsPosted = (page: Page, groups: number) =>
  page
    .waitForResponse(
      async (r) =>
        r.request().method() === 'POST' &&
        new URL(r.url()).pathname === RUNS_PATH &&
        r.ok() &&
        ((await r.json()) as Answer).result.length === groups,
      { timeout: 300_000 },
    )
    .then(async (r) => (await r.json()) as Answer);

async function marks(page: Page) {
  await page.waitForFunction('window.__orgdash.marks.settled !== undefined', undefined, {
    timeout: 300_000,
    polling: 100,
  });
  return (await page.evaluate(`(() => ({
    marks: { ...window.__orgdash.marks },
    posts: performance.getEntriesByType('resource')
      .filter((e) => new URL(e.name).pathname === '${RUNS_PATH}')
      .map((e) => ({ start: e.startTime, end: e.responseEnd })),
    states: [...document.querySelectorAll('section[data-testid^="chart-"][data-state]')]
      .map((p) => p.getAttribute('data-testid') + '=' + p.getAttribute('data-state')),
  }))()`)) as {
    marks: Record<string, number>;
    posts: { start: number; end: number }[];
    states: string[];
  };
}

/** A: navigation → the page's first render with its default filter (the month, the first 7 groups). */
async function firstRender(page: Page, url: string, ended: Map<string, number>) {
  const posted = runsPosted(page, DEFAULT_GROUPS);
  await page.goto(`${url}/dashboard`);
  const answer = await posted;
  const seen = await marks(page);
  const runs = await checkRuns(page, answer, DEFAULT_GROUPS, ended);
  const post = seen.posts[0]!;
  return {
    runs,
    sent: post.start,
    answered: post.end,
    anySvg: seen.marks.anySvg!,
    runsSvg: seen.marks.runsSvg!,
    settled: seen.marks.settled!,
    states: seen.states,
  };
}

/** B: all 50 groups for the same month through the filter bar, timed from the start input's change. */
async function allGroups(page: Page, ended: Map<string, number>) {
  const start = page.getByLabel('Start', { exact: true });
  await start.fill(AFTER_END); // start after end: the filter is invalid, nothing is asked
  await page.getByRole('combobox', { name: 'Groups' }).click();
  const listbox = page.getByRole('listbox');
  const unticked = listbox.locator('[role="option"][aria-selected="false"]');
  for (let n = await unticked.count(); n > 0; n = await unticked.count()) await unticked.first().click();
  await page.keyboard.press('Escape');
  await listbox.waitFor({ state: 'hidden' });
  const shown = await page.getByRole('combobox', { name: 'Groups' }).innerText();
  if (shown !== 'All groups') throw new Error(`the groups select shows ${JSON.stringify(shown)}`);
  await page.evaluate('window.__orgdash.reset()');
  const posted = runsPosted(page, GROUPS);
  await start.fill(START_INPUT);
  const answer = await posted;
  const seen = await marks(page);
  const runs = await checkRuns(page, answer, GROUPS, ended);
  const input = seen.marks.input!;
  const post = seen.posts.filter((p) => p.start >= input).at(-1)!;
  return {
    runs,
    sent: post.start - input,
    answered: post.end - input,
    runsSvg: seen.marks.runsSvg! - input,
    settled: seen.marks.settled! - input,
    states: seen.states,
  };
}

async function main() {
  // SANDFLOW_BENCH_DATABASE=pglite: the platform's PGlite even where a PostgreSQL could be had.
  const pglite = process.env.SANDFLOW_BENCH_DATABASE === 'pglite';
  const external = pglite ? undefined : process.env.SANDFLOW_TEST_DATABASE_URL;
  const postgres = external || pglite ? null : await startPostgres();
  let database: string;
  let createdDb: string | undefined;
  if (external) {
    // A database of its own on that server (as the API's test suites do).
    createdDb = `sandflow_bench_${Date.now().toString(36)}`;
    const admin = knexFactory({ client: 'pg', connection: external });
    await admin.raw(`CREATE DATABASE ${createdDb}`);
    await admin.destroy();
    const url = new URL(external);
    url.pathname = `/${createdDb}`;
    process.env.DATABASE_URL = url.toString();
    database = `PostgreSQL at SANDFLOW_TEST_DATABASE_URL (database ${createdDb})`;
  } else if (postgres) {
    process.env.DATABASE_URL = postgres.url;
    database = `${postgres.version}, a temp cluster (fsync off)`;
  } else {
    delete process.env.DATABASE_URL;
    database = 'PGlite in the data folder (the platform restarted after the seeding)';
  }
  const pgliteData = process.env.DATABASE_URL
    ? undefined
    : fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-bench-org-dashboard-'));
  process.stdout.write(
    `database: ${database}; Node ${process.version}; ${os.cpus().length} cores; load average ${loadAverage()}\n`,
  );
  let platform = await startPlatform(pgliteData ? { dataDir: pgliteData } : {});
  const browser = await chromium.launch({
    executablePath: process.env.SANDFLOW_CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const founder = await found(platform.url);
    if (founder.role !== 'organization_admin') throw new Error(`the founder's role is ${founder.role}`);
    let ended: Map<string, number>;
    if (process.env.DATABASE_URL) {
      const db = knexFactory({ client: 'pg', connection: process.env.DATABASE_URL });
      try {
        ended = await fill(db, founder.organization, founder.user);
      } finally {
        await db.destroy();
      }
    } else {
      // PGlite has one writer: the records go into its files while the platform is stopped.
      await platform.stop();
      const db = createDatabase({ pgliteDir: path.join(pgliteData!, 'pglite') });
      try {
        ended = await fill(db, founder.organization, founder.user);
      } finally {
        await db.destroy();
      }
      platform = await startPlatform({ dataDir: pgliteData! });
    }
    process.stdout.write(`load average after seeding: ${loadAverage()}\n`);

    const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, timezoneId: 'UTC' });
    await context.addInitScript(CLOCK);
    await context.addInitScript(MARKS);
    const login = await context.newPage();
    await login.goto(`${platform.url}/login`);
    await login.getByLabel('Email').fill(FOUNDER.email);
    await login.getByLabel('Password', { exact: true }).fill(FOUNDER.password);
    await login.getByRole('button', { name: 'Login' }).click();
    await login.waitForURL(/\/dashboard/);
    await login.close();

    const rows: {
      a: Awaited<ReturnType<typeof firstRender>>;
      b: Awaited<ReturnType<typeof allGroups>>;
      load: number;
    }[] = [];
    for (let i = 0; i < REPETITIONS; i++) {
      const page = await context.newPage();
      const a = await firstRender(page, platform.url, ended);
      const b = await allGroups(page, ended);
      await page.close();
      rows.push({ a, b, load: os.loadavg()[0]! });
      process.stdout.write(
        `#${i + 1} A: POST answered ${a.answered.toFixed(0)} ms, Session Runs drawn ${a.runsSvg.toFixed(0)} ms, ` +
          `settled ${a.settled.toFixed(0)} ms; B: answered ${b.answered.toFixed(0)} ms, drawn ` +
          `${b.runsSvg.toFixed(0)} ms, settled ${b.settled.toFixed(0)} ms (load ${loadAverage()})\n`,
      );
    }
    const ms = (pick: (r: (typeof rows)[number]) => number) =>
      `${median(rows.map(pick)).toFixed(0)} ms`.padEnd(9);
    const first = rows[0]!;
    process.stdout.write(
      `\nstates at the end: A ${first.a.states.join(' ')}\n                   B ${first.b.states.join(' ')}\n` +
        `runs ended in October: ${first.a.runs.toLocaleString('en')} in the first ${DEFAULT_GROUPS} groups, ` +
        `${first.b.runs.toLocaleString('en')} in all ${GROUPS}\n\n` +
        `median of ${REPETITIONS} (ms from navigation for A, from the start input's change for B):\n` +
        `| measure                                  | POST sent | POST answered | first chart svg | first Session Runs svg | all charts out of loading |\n` +
        `| A. navigation, month, ${DEFAULT_GROUPS} groups (default) | ${ms((r) => r.a.sent)} | ${ms((r) => r.a.answered)}     | ${ms((r) => r.a.anySvg)}       | ${ms((r) => r.a.runsSvg)}              | ${ms((r) => r.a.settled)}                 |\n` +
        `| B. filter bar, month, ${GROUPS} groups          | ${ms((r) => r.b.sent)} | ${ms((r) => r.b.answered)}     | –               | ${ms((r) => r.b.runsSvg)}              | ${ms((r) => r.b.settled)}                 |\n` +
        `load average (1 min) during the repetitions: ${rows.map((r) => r.load.toFixed(1)).join(', ')}; now ${loadAverage()}\n`,
    );
    await context.close();
  } finally {
    await browser.close();
    await platform.stop();
    if (pgliteData) fs.rmSync(pgliteData, { recursive: true, force: true });
    await postgres?.stop();
    if (createdDb && external) {
      const admin = knexFactory({ client: 'pg', connection: external });
      await admin.raw(`DROP DATABASE IF EXISTS ${createdDb} WITH (FORCE)`).catch(() => undefined);
      await admin.destroy();
    }
  }
}

await main();
