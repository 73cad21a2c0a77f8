// The organization dashboard (spec 3 §2.1) in Debian's Chromium (playwright-core) against
// `npm start`'s entry point with a production build of the console. An organization founds a
// group with a member, whose sessions run on the local runner (3 runs complete, 2 fail) and are
// recorded by the API's watch; then the organization admin sees Session Runs and Cluster Managers,
// and the member Session Runs, the run comparison (session~run picked with completion) and their
// free resources, at 1400 px and 574 px, in English, Italian and French. Screenshots land in
// test-results/console/ (dashboard-*.png).
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiCaller,
  type ConsoleE2E,
  hasChromium,
  login as loginAs,
  mailTo as mailToAs,
  overflow,
  shot as shotAs,
  signIn,
  startConsoleE2E,
  verify as verifyAs,
  type Who,
} from '../support/console-e2e.js';

const ADMIN = { email: 'root@example.com', password: 'Dashboard-E2e-Passw0rd!' };
const stamp = Date.now();
const FOUNDER = {
  first_name: 'Grace',
  last_name: 'Hopper',
  email: `grace.${stamp}@example.org`,
  password: 'Compiler-A0-1952!',
  organization: `Harvard Mark ${stamp % 100000}`,
};
const MEMBER = {
  first_name: 'Kathleen',
  last_name: 'Booth',
  email: `kathleen.${stamp}@example.org`,
  password: 'Assembly-ARC-1947!',
};
const GROUP = 'Engine Room';
const HOUR = 3_600_000;
// The member's runs: 3 COMPLETED of one session, 2 ERROR of another.
const OUTCOMES = { success: 3, failed: 2 };
const SESSIONS = { ok: 'Nightly ETL', broken: 'Broken loader' };
const KEYS = /\b(filters|states|cards|sessionRuns|clusters|resources|units|comparison|free)\.[a-zA-Z]/;

let e2e: ConsoleE2E;
/** Short ids of an ended run of each of the member's sessions (the run comparison picks them). */
let completedRun: string;
let failedRun: string;

const call = apiCaller(() => e2e.platform.url);
const login = (who: Who) => loginAs(call, who);
const mailTo = (email: string) => mailToAs(call, ADMIN, email);
const verify = (email: string) => verifyAs(call, ADMIN, email);

/** Asks `check` every half second until it answers something (expect.poll is for tests only). */
async function until<T>(check: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Waits for a run to end (COMPLETED, ERROR or STOPPED). */
const ended = (run: string, token: string) =>
  until(
    async () => {
      const { status } = await call<{ status: string }>('GET', `/run/${run}`, undefined, token);
      return /^(COMPLETED|ERROR|STOPPED)$/.test(status) ? status : undefined;
    },
    90_000,
    `end of run ${run}`,
  );

/** Types digits into a date-time field's sections (DD-MM-YYYY HH:mm), replacing what it held. */
async function typeDate(page: Page, label: string, digits: string) {
  await page.getByRole('group', { name: label, exact: true }).getByRole('spinbutton').first().click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('Backspace');
  await page.keyboard.type(digits);
}

async function signedIn(who: Who, width: number, language = 'en') {
  const page = await signIn(e2e, who, width);
  if (language !== 'en') {
    // The console reads the language from local storage (spec 1 §9) when it starts.
    await page.evaluate(`localStorage.setItem('language', '${language}')`);
    await page.reload();
  }
  return page;
}

const shot = (page: Page, name: string) => shotAs(page, `dashboard-${name}`);
/** A chart panel in a state, and (ready) its drawn svg. */
const chart = (page: Page, id: string, state = 'ready') =>
  page.locator(`[data-testid="${id}"][data-state="${state}"]`);
const drawn = async (page: Page, id: string) => {
  // The chart's own svg (legend icons are small svgs too), at a real size: not an empty box.
  const svg = chart(page, id).locator('.recharts-wrapper > svg.recharts-surface').first();
  const size = async () => {
    const box = await svg.boundingBox({ timeout: 5_000 }).catch(() => null);
    return Math.min(box?.width ?? 0, box?.height ?? 0);
  };
  await expect.poll(size, { message: id, timeout: 30_000 }).toBeGreaterThan(100);
};
const sections = (page: Page) => page.getByRole('main').getByRole('heading', { level: 2 }).allInnerTexts();
const settled = (page: Page) =>
  expect.poll(() => page.locator('[data-state="loading"]').count(), { timeout: 30_000 }).toBe(0);

/** The dashboard as `who` at `width`, loaded, with these sections (sorted) and summary cards (in order). */
async function dashboardOf(who: Who, width: number, sectionNames: string[], cards: string[]) {
  const page = await signedIn(who, width);
  await page.getByRole('heading', { level: 1, name: 'Organization dashboard' }).waitFor();
  await settled(page);
  expect((await sections(page)).sort()).toEqual(sectionNames);
  expect(
    await page.getByRole('list', { name: 'Organization dashboard' }).getByRole('listitem').allInnerTexts(),
  ).toEqual(cards.map((card) => expect.stringContaining(card)));
  return page;
}

describe.skipIf(!hasChromium)('the organization dashboard (Chromium)', () => {
  beforeAll(async () => {
    e2e = await startConsoleE2E({
      name: 'dashboard',
      admin: ADMIN,
      // Steps are host processes: no image to pull for the member's sessions.
      env: { SANDFLOW_RUNTIME: 'process' },
      // Other suites share the two cores: a slow start is not a failure here.
      timeoutMs: 180_000,
    });

    // The founder's organization, a member invited into it, and a group of both.
    await call('POST', '/user', { ...FOUNDER, use_invitation: false });
    await verify(FOUNDER.email);
    const founder = await login(FOUNDER);
    const organization = await call<{ id: string }>('GET', '/organization', undefined, founder);
    await call('POST', '/invite', { users: [MEMBER.email] }, founder);
    const invitation = /invite=([\w-]+)/.exec(await mailTo(MEMBER.email))?.[1];
    await call('POST', '/user', { ...MEMBER, use_invitation: true, invitation_link: invitation });
    await verify(MEMBER.email);
    const { id: groupId } = await call<{ id: string }>(
      'POST',
      '/group',
      {
        organization: organization.id,
        name: GROUP,
        members: [FOUNDER.email, MEMBER.email],
      },
      founder,
    );
    // The member's sessions run on the local runner (process runtime): the first workflow
    // completes, the second fails at its first step.
    const token = await login(MEMBER);
    const box = async (name: string, entrypoint: string) =>
      (
        await call<{ uuid: string }>(
          'POST',
          '/sandbox',
          { name, entrypoint, source_image: { image: 'alpine', version: '3.20' } },
          token,
        )
      ).uuid;
    const workflow = async (name: string, boxes: string[]) =>
      (
        await call<{ uuid: string }>(
          'POST',
          '/workflow',
          {
            name,
            nodes: boxes.map((src_id, i) => ({ id: `n${i + 1}`, name: `step${i + 1}`, src_id })),
            edges: boxes
              .slice(1)
              .map((_, i) => ({ id: `e${i}`, from: `n${i + 1}`, to: `n${i + 2}`, type: 'single' })),
          },
          token,
        )
      ).uuid;
    const ok = await box('extract_box', 'echo extracted');
    const slow = await box('load_box', 'sleep 0.2');
    const broken = await box('broken_box', 'exit 3');
    const runsOf = async (name: string, workflowUuid: string, count: number) => {
      const first = await call<{ schedule_id: string; run_uuid: string }>(
        'POST',
        '/session/instance',
        { name, workflow_uuid: workflowUuid, group: groupId },
        token,
      );
      const runs = [first.run_uuid];
      for (let i = 1; i < count; i++) {
        // One run at a time: each ends before the next starts.
        await ended(runs.at(-1)!, token);
        const next = await call<{ run_uuid: string }>(
          'POST',
          '/session/fast',
          { uuid: first.schedule_id, workflow_uuid: workflowUuid },
          token,
        );
        runs.push(next.run_uuid);
      }
      await ended(runs.at(-1)!, token);
      // The picker names a run by its short id: the first 8 characters of its uuid.
      return runs[0]!.slice(0, 8);
    };
    completedRun = await runsOf(SESSIONS.ok, await workflow('nightly etl', [ok, slow]), OUTCOMES.success);
    failedRun = await runsOf(SESSIONS.broken, await workflow('broken loader', [broken, ok]), OUTCOMES.failed);
    // The API's watch records them as they end.
    const founder2 = await login(FOUNDER);
    await until(
      async () => {
        const stats = await call<{ success: number; failed: number }[]>(
          'POST',
          '/statistic/runs',
          {
            groups: [groupId],
            start_date: new Date(Date.now() - 24 * HOUR).toISOString(),
            end_date: new Date(Date.now() + HOUR).toISOString(),
          },
          founder2,
        );
        const [group] = stats;
        return group?.success === OUTCOMES.success && group.failed === OUTCOMES.failed ? true : undefined;
      },
      60_000,
      'recorded runs',
    );
  }, 420_000);

  afterAll(async () => {
    await e2e?.close();
  });

  it('the organization admin sees Session Runs and Cluster Managers, drawn, at 1400 px and 574 px', async () => {
    for (const width of [1400, 574]) {
      const page = await dashboardOf(
        FOUNDER,
        width,
        ['Cluster Managers', 'Session Runs'],
        ['Scheduled Runs', 'Active Runs', 'Active Groups'],
      );
      // 5 ended runs, 3 of them successful.
      await expect.poll(() => page.getByTestId('card-ended').innerText()).toContain('5');
      expect(await page.getByTestId('card-success').innerText()).toContain('3');
      expect(await page.getByTestId('card-failed').innerText()).toContain('2');
      for (const id of ['chart-outcomes', 'chart-group-runs']) await drawn(page, id);
      // Cluster usage is sampled every minute: the line charts once there is a sample.
      await expect
        .poll(
          async () => {
            if ((await chart(page, 'chart-lines-cpu').count()) === 0) {
              await page.reload();
              await settled(page);
            }
            return chart(page, 'chart-lines-cpu').count();
          },
          { timeout: 150_000, interval: 10_000 },
        )
        .toBe(1);
      for (const id of ['chart-lines-cpu', 'chart-lines-memory', 'chart-usage-cpu']) await drawn(page, id);
      // The limit annotation of the line charts.
      expect(await chart(page, 'chart-lines-cpu').locator('.recharts-reference-line').count()).toBe(1);
      expect(await page.getByRole('main').innerText()).not.toMatch(KEYS);
      await shot(page, `admin-${width}`);
      expect(await overflow(page), `${width} px`).toBeLessThanOrEqual(0);
      await page.close();
    }
  });

  it('the member sees Session Runs, the run comparison and free resources, at 1400 px and 574 px', async () => {
    for (const width of [1400, 574]) {
      const page = await dashboardOf(
        MEMBER,
        width,
        ['Run Comparison', 'Session Runs'],
        ['Active Sessions', 'Active Runs', 'Scheduled Runs'],
      );
      for (const id of ['chart-outcomes', 'chart-group-runs']) await drawn(page, id);
      await chart(page, 'chart-comparison', 'noRuns')
        .getByText('Ops, seems you have no Runs selected')
        .waitFor();
      await page
        .getByTestId('free-resources')
        .getByRole('row', { name: new RegExp(GROUP) })
        .waitFor();
      // The run comparison: 'session~run' completed with Tab, then Enter.
      const picker = page.getByRole('textbox', { name: 'Session~Run 1' });
      await picker.fill('no such session');
      await page.getByText('No run found').waitFor();
      await picker.fill(SESSIONS.ok.slice(0, 5));
      await picker.press('Tab');
      await expect.poll(() => picker.inputValue()).toBe(`${SESSIONS.ok}~`);
      await picker.pressSequentially(completedRun.slice(0, completedRun.length - 2));
      await picker.press('Enter');
      await expect.poll(() => picker.inputValue()).toBe(`${SESSIONS.ok}~${completedRun}`);
      await page.getByRole('button', { name: 'Add a run' }).click();
      const second = page.getByRole('textbox', { name: 'Session~Run 2' });
      await second.fill(`${SESSIONS.broken}~${failedRun}`);
      await expect.poll(() => chart(page, 'chart-comparison').getByRole('row').count()).toBe(3);
      await drawn(page, 'chart-comparison');
      expect(await page.getByRole('main').innerText()).not.toMatch(KEYS);
      await shot(page, `member-${width}`);
      expect(await overflow(page), `${width} px`).toBeLessThanOrEqual(0);
      await page.close();
    }
  });

  it('shows each chart state: no filter, no data', async () => {
    const page = await signedIn(FOUNDER, 1400);
    await settled(page);
    await drawn(page, 'chart-outcomes');
    // A start after the end: the filter bar says why, the charts ask for a filter.
    await typeDate(page, 'Start', '01012099 0000');
    await page.getByText('The start must not be after the end').waitFor();
    await chart(page, 'chart-outcomes', 'noFilter').getByText('Select an option from filter bar').waitFor();
    await shot(page, 'no-filter-1400');
    // A range without runs: the no-data message, never an error page.
    await typeDate(page, 'Start', '01012001 0000');
    await typeDate(page, 'End', '02012001 0000');
    await chart(page, 'chart-outcomes', 'noData').getByText('Try running a session').waitFor();
    await settled(page);
    await shot(page, 'no-data-1400');
    await page.getByRole('button', { name: 'Reset Filters' }).click();
    await drawn(page, 'chart-outcomes');
    await page.close();
  });

  it.each(['it', 'fr'])('%s: the texts fit at 574 px and 1400 px', async (language) => {
    for (const [who, role] of [
      [FOUNDER, 'admin'],
      [MEMBER, 'member'],
    ] as const) {
      for (const width of [574, 1400]) {
        const page = await signedIn(who, width, language);
        await settled(page);
        await drawn(page, 'chart-outcomes');
        expect(await page.getByRole('main').innerText()).not.toMatch(KEYS);
        await shot(page, `${role}-${language}-${width}`);
        expect(await overflow(page), `${role} ${language} ${width} px`).toBeLessThanOrEqual(0);
        await page.close();
      }
    }
  });
});
