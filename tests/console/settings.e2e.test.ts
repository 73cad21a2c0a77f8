// Users Settings and Super Settings in Debian's Chromium (playwright-core) against `npm start`'s
// entry point with a production build of the console: an organization admin edits a member's
// quota and UID; the super admin walks every Super Settings tab and creates and deletes an
// organization. Screenshots at 1400 px and 574 px land in test-results/console/.
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
const ADMIN = { email: 'root@example.com', password: 'Settings-E2e-Passw0rd!' };
const PERSON = {
  first_name: 'Grace',
  last_name: 'Hopper',
  email: `grace.${Date.now()}@example.org`,
  password: 'Compiler-A0-1952!',
  organization: `Harvard Mark ${Date.now() % 100000}`,
};
const KEYS =
  /\b(users|members|super|organizations|miscellaneous|superFilter|columns|quota|clusters)\.[a-zA-Z]/;

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
const login = async (email: string, password: string) =>
  (await call<{ access_token: string }>('POST', '/login', { username: email, password })).access_token;

async function signedIn(who: { email: string; password: string }, width: number) {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  await page.goto(`${platform.url}/login`);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password', { exact: true }).fill(who.password);
  await page.getByRole('button', { name: 'Login' }).click();
  await page.waitForURL(/\/dashboard/);
  return page;
}

const shot = (page: Page, name: string) =>
  page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
const overflow = (page: Page) =>
  page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
const settled = (page: Page) =>
  expect.poll(() => page.getByRole('main').getByRole('progressbar').count(), { timeout: 15_000 }).toBe(0);

describe.skipIf(!hasChromium)('Users Settings and Super Settings (Chromium)', () => {
  beforeAll(async () => {
    fs.mkdirSync(shots, { recursive: true });
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-settings-e2e-'));
    const consoleDir = path.join(dataDir, 'console');
    await build({
      root: path.join(repoRoot, 'console'),
      logLevel: 'warn',
      build: { outDir: consoleDir, emptyOutDir: true },
    });
    platform = await startPlatform({
      dataDir,
      env: {
        SANDFLOW_ADMIN_EMAIL: ADMIN.email,
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
    // A person with an organization of their own, verified through the mail they got, and a
    // group they are a member of.
    await call('POST', '/user', { ...PERSON, use_invitation: false });
    const root = await login(ADMIN.email, ADMIN.password);
    const mails = await call<{ text: string }[]>(
      'GET',
      `/admin/outbox?to=${encodeURIComponent(PERSON.email)}`,
      undefined,
      root,
    );
    const token = /\/verification\/([\w-]+)/.exec(mails[0]!.text)?.[1];
    await call('GET', `/verify/${token}`);
    const me = await login(PERSON.email, PERSON.password);
    const organization = await call<{ id: string }>('GET', '/organization', undefined, me);
    await call(
      'POST',
      '/group',
      { organization: organization.id, name: 'Engine Room', members: [PERSON.email] },
      me,
    );
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await platform?.stop('SIGTERM');
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('Users Settings: an organization admin sets a member’s quota and UID', async () => {
    const page = await signedIn(PERSON, 1400);
    await page.goto(`${platform.url}/settings/users`);
    const table = page.getByRole('table', { name: 'Members of Engine Room' });
    await table.waitFor();
    expect(await page.getByRole('main').innerText()).not.toMatch(KEYS);
    await shot(page, 'users-settings-1400');
    await table.getByRole('button', { name: `Edit the quota of ${PERSON.email}` }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('switch', { name: 'Percentage of the group quota' }).click();
    await dialog.getByLabel('UID').fill('4242');
    await shot(page, 'users-settings-quota-1400');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByText(`Quota of ${PERSON.email} saved.`).waitFor();
    await dialog.waitFor({ state: 'detached' });
    await expect
      .poll(() => table.getByRole('row', { name: new RegExp(PERSON.email) }).innerText())
      .toContain('4242');
    await page.close();

    const narrow = await signedIn(PERSON, 574);
    await narrow.goto(`${platform.url}/settings/users`);
    await narrow.getByRole('table', { name: 'Members of Engine Room' }).waitFor();
    await shot(narrow, 'users-settings-574');
    expect(await overflow(narrow)).toBeLessThanOrEqual(0);
    await narrow.close();
  });

  it('Super Settings: every tab shows words; an organization is created and deleted with its users', async () => {
    const page = await signedIn(ADMIN, 1400);
    for (const tab of ['organizations', 'groups', 'users', 'cluster_managers', 'miscellaneous']) {
      await page.goto(`${platform.url}/settings/admin?tab=${tab}`);
      await page.getByRole('main').getByRole('button').first().waitFor();
      await settled(page);
      expect(await page.getByRole('main').innerText(), tab).not.toMatch(KEYS);
      await shot(page, `super-${tab}-1400`);
    }

    await page.goto(`${platform.url}/settings/admin?tab=organizations`);
    const table = page.getByRole('table', { name: 'Organizations' });
    await table.getByText(PERSON.organization).waitFor();
    await page.getByRole('button', { name: 'Create new' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create Organization' });
    const name = `Jacquard ${Date.now() % 100000}`;
    await dialog.getByLabel('Name').fill(name);
    await shot(page, 'super-create-organization-1400');
    await dialog.getByLabel('Name').press('Enter');
    await dialog.waitFor({ state: 'detached' });
    await table.getByText(name).waitFor();

    await page.getByRole('button', { name: `Delete ${name}` }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete Organization' });
    await confirm.getByRole('checkbox', { name: 'Remove all users' }).check();
    await confirm.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText(`Organization ${name} deleted.`).waitFor();
    await expect.poll(() => table.getByText(name).count()).toBe(0);
    await page.close();

    const narrow = await signedIn(ADMIN, 574);
    for (const tab of ['organizations', 'groups', 'users', 'miscellaneous']) {
      await narrow.goto(`${platform.url}/settings/admin?tab=${tab}`);
      await narrow.getByRole('main').getByRole('button').first().waitFor();
      await settled(narrow);
      await shot(narrow, `super-${tab}-574`);
      expect(await overflow(narrow), tab).toBeLessThanOrEqual(0);
    }
    await narrow.close();
  });
});
