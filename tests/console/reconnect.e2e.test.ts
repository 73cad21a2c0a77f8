// Issue 19 §3 faults, the console's side: the session list open in Debian's Chromium
// (playwright-core) against `npm start`'s entry point with a production build of the console; the
// platform process is killed (kill -9) and started again on the same data folder and port. Without
// a reload the page reconnects by itself: the realtime dot goes back to connected, a run started
// after the restart shows up live in the list, and no error page or sign-in page is shown; after an
// outage longer than the socket's retries (the dot closed) it is found again without a click.
// Screenshots land in test-results/console/ (reconnect-*.png).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/platform.js';
import { ADMIN, boot, killHard, makeWorld, type Started, type World } from '../faults/support.js';

const CHROMIUM = process.env.SANDFLOW_CHROMIUM ?? '/usr/bin/chromium';
const hasChromium = fs.existsSync(CHROMIUM);
const shots = path.join(repoRoot, 'test-results/console');
const ORG = 'Reconnect E2e';

let browser: Browser;
let s: Started;
let w: World;
let tmp: string;
let dataDir: string;
let consoleDir: string;

const start = (port = '0') => boot(dataDir, { SANDFLOW_CONSOLE_DIR: consoleDir, SANDFLOW_PORT: port });
const shot = (page: Page, name: string) =>
  page.screenshot({ path: path.join(shots, `reconnect-${name}.png`), fullPage: true });
const dot = (page: Page) => page.getByRole('banner').locator('[data-status]').first();

describe.skipIf(!hasChromium)('the console after kill -9 of the platform (Chromium)', () => {
  beforeAll(async () => {
    fs.mkdirSync(shots, { recursive: true });
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-reconnect-e2e-'));
    dataDir = path.join(tmp, 'data');
    consoleDir = path.join(tmp, 'console');
    await build({
      root: path.join(repoRoot, 'console'),
      logLevel: 'warn',
      build: { outDir: consoleDir, emptyOutDir: true },
    });
    s = await start();
    // Steps that last: the run started after the restart is still running when the list shows it.
    w = await makeWorld(s, dataDir, { name: ORG, stepSeconds: 20 });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  }, 420_000);

  afterAll(async () => {
    await browser?.close();
    if (s) await killHard(s.platform);
    if (w) fs.rmSync(w.executions, { force: true });
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it(
    'reconnects by itself: the dot connected again, a new run shows up live, no error page',
    { timeout: 420_000 },
    async () => {
      const url = s.platform.url;
      const port = new URL(url).port;
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${url}/login`);
      await page.getByLabel('Email').fill(ADMIN.email);
      await page.getByLabel('Password', { exact: true }).fill(ADMIN.password);
      await page.getByRole('button', { name: 'Login' }).click();
      await page.waitForURL(/\/dashboard/);
      await page.goto(`${url}/session/list`);
      const row = page
        .getByRole('table', { name: 'Session List' })
        .getByTestId('session-row')
        .filter({ hasText: 'faults session' });
      // The session's state is the colour of its name (`data-state`, a tooltip names it).
      const state = () => row.locator('[data-state]').getAttribute('data-state');
      await expect
        .poll(state, { timeout: 30_000 })
        .toBe('none')
        .catch(async (e: unknown) => {
          await shot(page, 'list');
          throw new Error(`${String(e)}\n${await page.getByRole('main').innerText()}`);
        });
      await expect.poll(() => dot(page).getAttribute('data-status'), { timeout: 30_000 }).toBe('connected');
      // A mark on the window: it is gone if the page is ever reloaded.
      await page.evaluate('window.__sandflowMark = 19');

      await killHard(s.platform);
      await expect
        .poll(() => dot(page).getAttribute('data-status'), { timeout: 30_000 })
        .not.toBe('connected');
      await shot(page, 'down');
      const down = Date.now();
      s = await start(port);
      expect(s.platform.url).toBe(url);
      await s.client.signIn(ORG);

      await expect.poll(() => dot(page).getAttribute('data-status'), { timeout: 90_000 }).toBe('connected');
      const back = Date.now() - down;
      const run = (
        await s.client.must<{ run_uuid: string }>('POST', '/session/fast', {
          uuid: w.session,
          workflow_uuid: w.workflow,
        })
      ).run_uuid;
      // The realtime message of the new run moves the row, without a reload.
      await expect.poll(state, { timeout: 60_000 }).toBe('running');
      await shot(page, 'back');
      expect(await page.evaluate('window.__sandflowMark')).toBe(19);
      expect(page.url()).toBe(`${url}/session/list`);
      await expect(page.getByText(/Unexpected Application Error|Something went wrong/).count()).resolves.toBe(
        0,
      );
      expect(errors).toEqual([]);

      // A longer outage, past the socket's retries (1 + 2 + … + 32 s): the dot shows closed, and once
      // the platform is back the socket is found again without a click.
      await killHard(s.platform);
      await expect.poll(() => dot(page).getAttribute('data-status'), { timeout: 120_000 }).toBe('closed');
      await shot(page, 'closed');
      const closed = Date.now();
      s = await start(port);
      await expect.poll(() => dot(page).getAttribute('data-status'), { timeout: 90_000 }).toBe('connected');
      const found = Date.now() - closed;
      expect(await page.evaluate('window.__sandflowMark')).toBe(19);
      expect(page.url()).toBe(`${url}/session/list`);
      expect(errors).toEqual([]);
      console.info(
        `the console reconnected ${Math.round(back / 1000)} s after the restart began; run ${run} shown live; ` +
          `after an outage past its retries, connected again ${Math.round(found / 1000)} s after the restart began`,
      );
      await page.close();
    },
  );
});
