// Organization Settings › Cluster Managers, Registry and Mount Points in Debian's Chromium
// (playwright-core) against `npm start`'s entry point with a production build of the console:
// an organization admin generates an agent token and sees the new cluster manager in the
// table. Screenshots at 1400 px and 574 px land in test-results/console/.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, startPlatform, type Platform } from '../support/platform.js';

const CHROMIUM = process.env.SANDFLOW_CHROMIUM ?? '/usr/bin/chromium';
const hasChromium = fs.existsSync(CHROMIUM);
const shots = path.join(repoRoot, 'test-results/console');
const ADMIN = { username: 'root@example.com', password: 'Clusters-E2e-Passw0rd!' };
const PERSON = {
  first_name: 'Grace',
  last_name: 'Hopper',
  email: `grace.${Date.now()}@example.org`,
  password: 'Compiler-A0-1952!',
  organization: `Harvard Mark ${Date.now() % 100000}`,
};

let platform: Platform;
let browser: Browser;
let dataDir: string;

async function call<T>(method: string, apiPath: string, body?: unknown, token?: string): Promise<T> {
  const response = await fetch(`${platform.url}/api/v0${apiPath}`, {
    method,
    headers: {
      'Content-Type': 'application/json',
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as { result: T };
  if (response.status >= 300)
    throw new Error(`${method} ${apiPath}: ${response.status} ${JSON.stringify(json)}`);
  return json.result;
}
const login = async (username: string, password: string) =>
  (await call<{ access_token: string }>('POST', '/login', { username, password })).access_token;

/** A page signed in as the organization admin (through the login screen). */
async function signedIn(width: number) {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  await page.goto(`${platform.url}/login`);
  await page.getByLabel('Email').fill(PERSON.email);
  await page.getByLabel('Password', { exact: true }).fill(PERSON.password);
  await page.getByRole('button', { name: 'Login' }).click();
  await page.waitForURL(/\/dashboard/);
  return page;
}

const shot = (page: Page, name: string) =>
  page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });

describe.skipIf(!hasChromium)('Organization Settings › cluster managers (Chromium)', () => {
  beforeAll(async () => {
    fs.mkdirSync(shots, { recursive: true });
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-clusters-e2e-'));
    const consoleDir = path.join(dataDir, 'console');
    await build({
      root: path.join(repoRoot, 'console'),
      logLevel: 'warn',
      build: { outDir: consoleDir, emptyOutDir: true },
    });
    platform = await startPlatform({
      dataDir,
      env: {
        SANDFLOW_ADMIN_EMAIL: ADMIN.username,
        SANDFLOW_ADMIN_PASSWORD: ADMIN.password,
        SANDFLOW_CONSOLE_DIR: consoleDir,
      },
    });
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
    // A person with an organization of their own, verified through the mail they got.
    await call('POST', '/user', { ...PERSON, use_invitation: false });
    const root = await login(ADMIN.username, ADMIN.password);
    const mails = await call<{ text: string }[]>(
      'GET',
      `/admin/outbox?to=${encodeURIComponent(PERSON.email)}`,
      undefined,
      root,
    );
    const token = /\/verification\/([\w-]+)/.exec(mails[0]!.text)?.[1];
    await call('GET', `/verify/${token}`);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await platform?.stop('SIGTERM');
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('generates a token once and shows the new cluster manager in the table', async () => {
    const page = await signedIn(1400);
    await page.goto(`${platform.url}/settings/organization?section=clusterManagers`);
    await page.getByRole('radio', { name: 'Round Robin' }).waitFor();
    await expect(page.getByRole('radio', { name: 'Round Robin' }).isChecked()).resolves.toBe(true);
    const rows = page.getByTestId('cluster-row');
    const before = await rows.count().catch(() => 0);
    await shot(page, 'clusters-1400');

    const add = before
      ? page.getByRole('button', { name: 'Add new' })
      : page.getByRole('button', { name: 'Generate Token' });
    await add.click();
    const dialog = page.getByRole('dialog', { name: 'Add a cluster manager' });
    await dialog.waitFor();
    expect((await dialog.boundingBox())?.width).toBe(662);
    await dialog.getByRole('button', { name: 'Generate Token' }).click();
    const token = await dialog.getByLabel('Token', { exact: true }).inputValue();
    expect(token).toMatch(/^sfa_[\w-]{40,}$/);
    await shot(page, 'clusters-token-1400');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });

    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(before + 1);
    expect(await page.content()).not.toContain(token);
    // Its agent never connected: the closed dot.
    await expect.poll(() => page.locator('[data-connection="closed"]').count()).toBeGreaterThan(0);

    // Its flyout: an organization admin disables it for the organization, or unlinks it.
    await rows
      .last()
      .getByRole('button', { name: /^Actions of / })
      .click();
    const flyout = page.getByRole('region', { name: /^Cluster manager / });
    await flyout.getByRole('switch', { name: 'Disable for my organization' }).waitFor();
    expect(await flyout.getByRole('button', { name: 'Rename' }).count()).toBe(0);
    await shot(page, 'clusters-flyout-1400');
    await flyout.getByRole('button', { name: 'Close' }).click();
    await flyout.waitFor({ state: 'detached' });

    // The scheduler is saved 1 s after the choice.
    await page.getByRole('radio', { name: 'Fill one' }).click();
    await page.getByText('Scheduler set to Fill one.').waitFor();
    const me = await login(PERSON.email, PERSON.password);
    expect((await call<{ algorithm: string }>('GET', '/organization', undefined, me)).algorithm).toBe(
      'fill_one',
    );
    await page.close();
  });

  it('shows words, not dictionary keys, in every Organization Settings section', async () => {
    const page = await signedIn(1400);
    for (const section of ['admin', 'groups', 'users', 'clusterManagers', 'registry', 'mountPoints']) {
      await page.goto(`${platform.url}/settings/organization?section=${section}`);
      await page.getByRole('main').getByRole('button').first().waitFor();
      await expect.poll(() => page.getByRole('main').getByRole('progressbar').count()).toBe(0);
      const text = await page.getByRole('main').innerText();
      expect(text, section).not.toMatch(
        /\b(admin|groups|users|invite|quota|clusters|registry|mountPoints|columns)\.[a-zA-Z]/,
      );
    }
    await page.close();
  });

  it('fits the sections at 574 px', async () => {
    const page = await signedIn(574);
    for (const section of ['clusterManagers', 'registry', 'mountPoints']) {
      await page.goto(`${platform.url}/settings/organization?section=${section}`);
      await (
        section === 'clusterManagers'
          ? page.getByRole('radio', { name: 'Round Robin' })
          : page.getByRole('button', { name: 'Save' })
      ).waitFor();
      await shot(page, `${section}-574`);
      const overflow = await page.evaluate<number>(
        'document.documentElement.scrollWidth - window.innerWidth',
      );
      expect(overflow, section).toBeLessThanOrEqual(0);
    }
    await page.close();
  });
});
