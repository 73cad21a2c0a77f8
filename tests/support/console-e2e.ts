// What the console's browser suites (tests/console/*.e2e.test.ts) share: Debian's Chromium
// (playwright-core) against `npm start`'s entry point serving a production build of the console
// from the data folder, the API as JSON, signing in through the login screen, screenshots in
// test-results/console/ and the checks the screens are measured with.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { build } from 'vite';
import { expect } from 'vitest';
import { repoRoot, startPlatform, type Platform } from './platform.js';

export const CHROMIUM = process.env.SANDFLOW_CHROMIUM ?? '/usr/bin/chromium';
export const hasChromium = fs.existsSync(CHROMIUM);
/** Where `shot` puts the screenshots (a name with a slash makes a subfolder). */
export const SHOTS_DIR = path.join(repoRoot, 'test-results/console');

/** Someone who signs in: the super admin or a registered person. */
export interface Who {
  email: string;
  password: string;
}

export interface ConsoleE2E {
  /** The running platform; replaced by restart() (its port changes). */
  platform: Platform;
  browser: Browser;
  dataDir: string;
  /** The console's production build, served by the platform (SANDFLOW_CONSOLE_DIR). */
  consoleDir: string;
  /** Stops the platform, runs `whileStopped` on its data, and starts it again with the same settings. */
  restart: (whileStopped?: () => Promise<void>) => Promise<void>;
  /** Closes the browser, stops the platform and removes the data folder. */
  close: () => Promise<void>;
}

/**
 * A fresh data folder (`sandflow-<name>-e2e-…`) with the console built into it, the platform
 * started on it with `admin` as its super admin and `env` on top, and Chromium launched.
 * `prepare` runs on the data folder while the console builds, before the platform starts.
 */
export async function startConsoleE2E(options: {
  name: string;
  admin: Who;
  env?: Record<string, string>;
  /** For startPlatform (default 60 s). */
  timeoutMs?: number;
  prepare?: (dataDir: string) => Promise<void>;
}): Promise<ConsoleE2E> {
  fs.mkdirSync(SHOTS_DIR, { recursive: true });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `sandflow-${options.name}-e2e-`));
  const consoleDir = path.join(dataDir, 'console');
  const start = () =>
    startPlatform({
      dataDir,
      timeoutMs: options.timeoutMs,
      env: {
        SANDFLOW_ADMIN_EMAIL: options.admin.email,
        SANDFLOW_ADMIN_PASSWORD: options.admin.password,
        SANDFLOW_CONSOLE_DIR: consoleDir,
        ...options.env,
      },
    });
  let platform: Platform | undefined;
  let browser: Browser | undefined;
  try {
    await Promise.all([
      build({
        root: path.join(repoRoot, 'console'),
        logLevel: 'warn',
        build: { outDir: consoleDir, emptyOutDir: true },
      }),
      options.prepare?.(dataDir),
    ]);
    platform = await start();
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
  } catch (error) {
    await browser?.close();
    await platform?.stop('SIGTERM');
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const e2e: ConsoleE2E = {
    platform,
    browser,
    dataDir,
    consoleDir,
    restart: async (whileStopped) => {
      await e2e.platform.stop('SIGTERM');
      await whileStopped?.();
      e2e.platform = await start();
    },
    close: async () => {
      await e2e.browser.close();
      await e2e.platform.stop('SIGTERM');
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return e2e;
}

export type Call = <T>(method: string, apiPath: string, body?: unknown, token?: string) => Promise<T>;

/** JSON calls to /api/v0 of the platform at `url()` (asked each time: a restart changes it); throws on a status ≥ 300. */
export function apiCaller(url: () => string): Call {
  return async <T>(method: string, apiPath: string, body?: unknown, token?: string): Promise<T> => {
    const response = await fetch(`${url()}/api/v0${apiPath}`, {
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
  };
}

/** An access token for `who`. */
export const login = async (call: Call, who: Who) =>
  (await call<{ access_token: string }>('POST', '/login', { username: who.email, password: who.password }))
    .access_token;

/** The last mail to `email` (the platform keeps it in the outbox without SMTP), read by the super admin. */
export async function mailTo(call: Call, admin: Who, email: string): Promise<string> {
  const mails = await call<{ text: string }[]>(
    'GET',
    `/admin/outbox?to=${encodeURIComponent(email)}`,
    undefined,
    await login(call, admin),
  );
  return mails[0]!.text;
}

/** Follows the verification link of the last mail to `email`. */
export async function verify(call: Call, admin: Who, email: string) {
  const token = /\/verification\/([\w-]+)/.exec(await mailTo(call, admin, email))?.[1];
  await call('GET', `/verify/${token}`);
}

/** A page signed in as `who` through the login screen, on the dashboard; a width means 900 px high. */
export async function signIn(
  e2e: ConsoleE2E,
  who: Who,
  viewport: number | { width: number; height: number },
): Promise<Page> {
  const page = await e2e.browser.newPage({
    viewport: typeof viewport === 'number' ? { width: viewport, height: 900 } : viewport,
  });
  await page.goto(`${e2e.platform.url}/login`);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password', { exact: true }).fill(who.password);
  await page.getByRole('button', { name: 'Login' }).click();
  await page.waitForURL(/\/dashboard/);
  return page;
}

/** A full-page screenshot as SHOTS_DIR/<name>.png. */
export async function shot(page: Page, name: string) {
  const file = path.join(SHOTS_DIR, `${name}.png`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  await page.screenshot({ path: file, fullPage: true });
}

/** How many pixels the page is wider than the window (0: no horizontal scrolling). */
export const overflow = (page: Page) =>
  page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');

/** Waits until the main area shows no progress bar. */
export const settled = (page: Page) =>
  expect.poll(() => page.getByRole('main').getByRole('progressbar').count(), { timeout: 15_000 }).toBe(0);
