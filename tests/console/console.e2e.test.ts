// The console end to end: Debian's Chromium (playwright-core) against `npm start`'s entry
// point with a production build of the console. Screenshots of each screen land in
// test-results/console/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiCaller,
  CHROMIUM,
  type ConsoleE2E,
  hasChromium,
  login,
  shot,
  signIn,
  startConsoleE2E,
} from '../support/console-e2e.js';

const ADMIN = { email: 'root@example.com', password: 'Console-E2e-Passw0rd!' };
const PERSON = {
  first: 'Ada',
  last: 'Lovelace',
  email: `ada.${Date.now()}@example.org`,
  password: 'Engine-Notes-1843!',
  organization: `Analytical Engines ${Date.now() % 100000}`,
};

let e2e: ConsoleE2E;
const call = apiCaller(() => e2e.platform.url);

/** The API as the super admin (for reading the outbox and acting as "another user"). */
const asAdmin = async <T>(method: string, apiPath: string, body?: unknown): Promise<T> =>
  call<T>(method, apiPath, body, await login(call, ADMIN));

/** A page signed in as the registered person (through the login screen). */
const signedIn = (viewport = { width: 1280, height: 800 }) => signIn(e2e, PERSON, viewport);

describe.skipIf(!hasChromium)('console end to end (Chromium)', () => {
  beforeAll(async () => {
    e2e = await startConsoleE2E({ name: 'console', admin: ADMIN });
  }, 120_000);

  afterAll(async () => {
    await e2e?.close();
  });

  it('registers a new organization, verifies the e-mail, signs in and shows the organization', async () => {
    const page = await e2e.browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${e2e.platform.url}/signup`);
    await page.getByLabel('First name').fill(PERSON.first);
    await page.getByLabel('Last name').fill(PERSON.last);
    await page.getByLabel('Email').fill(PERSON.email);
    await page.getByLabel('Password', { exact: true }).fill(PERSON.password);
    await page.getByLabel('Confirm password').fill(PERSON.password);
    await page.getByRole('tab', { name: 'New Organization' }).click();
    await page.getByPlaceholder('Insert name of a new Organization...').fill(PERSON.organization);
    await shot(page, 'signup');
    await page.getByRole('button', { name: 'Register' }).click();
    await page.getByText('Registration success. Check your email to confirm').waitFor();

    const mails = await asAdmin<{ text: string }[]>(
      'GET',
      `/admin/outbox?to=${encodeURIComponent(PERSON.email)}`,
    );
    const link = /\/verification\/[\w-]+/.exec(mails[0]!.text)?.[0];
    expect(link, mails[0]?.text).toBeDefined();
    await page.goto(`${e2e.platform.url}${link}`);
    await page.getByText('Verification success').waitFor();
    await page.getByText(/You will redirect to the login page in \d sec/).waitFor();
    await shot(page, 'verification');
    await page.waitForURL(/\/login/, { timeout: 10_000 });

    // A wrong password: the inline message, no hint which part was wrong.
    await page.getByLabel('Email').fill(PERSON.email);
    await page.getByLabel('Password', { exact: true }).fill('Not-the-password-1');
    await page.getByRole('button', { name: 'Login' }).click();
    await page.getByText('Invalid credential').waitFor();
    await shot(page, 'login-invalid');

    await page.getByLabel('Password', { exact: true }).fill(PERSON.password);
    await page.getByLabel('Password', { exact: true }).press('Enter');
    await page.waitForURL(/\/dashboard/);
    await page.getByRole('banner').getByText(PERSON.organization).waitFor();
    await shot(page, 'dashboard');
    await page.close();
  });

  it("shows another person's action as a toast and in the bell without reload", async () => {
    const page = await signedIn();
    await page.getByLabel('Realtime: connected').waitFor();
    const organizations = await asAdmin<{ id: string; name: string }[]>('GET', '/organizations');
    const org = organizations.find((o) => o.name === PERSON.organization)!;
    await asAdmin('POST', '/group', { organization: org.id, name: 'Engine Room', members: [PERSON.email] });
    const toast = page.getByTestId('toast').filter({ hasText: 'You were added to the group Engine Room' });
    await toast.waitFor();
    await shot(page, 'toast');
    await page.getByRole('button', { name: 'Notifications' }).click();
    await page.getByRole('presentation').getByText('You were added to the group Engine Room').waitFor();
    await shot(page, 'bell');
    await page.keyboard.press('Escape');
    await page.close();
  });

  it('translates the shell into Italian and French', async () => {
    const page = await signedIn();
    await page.goto(`${e2e.platform.url}/profile?tab=preferences`);
    for (const [language, dot, section] of [
      ['Italiano', 'Tempo reale: connesso', 'Sessione'],
      ['Français', 'Temps réel : connecté', 'Session'],
      ['English', 'Realtime: connected', 'Session'],
    ] as const) {
      await page.getByRole('combobox', { name: /^(Language|Lingua|Langue)$/ }).click();
      await page.getByRole('option', { name: language }).click();
      await page.getByLabel(dot).waitFor();
      await page.getByRole('banner').getByRole('link', { name: section, exact: true }).waitFor();
      await shot(page, `preferences-${language}`);
    }
    expect(await page.evaluate('localStorage.getItem("language")')).toBe('en');
    await page.close();
  });

  it('lets the super admin read the mail outbox from the settings gear', async () => {
    const page = await signIn(e2e, ADMIN, { width: 1280, height: 800 });
    await page.getByRole('button', { name: 'Settings' }).click();
    await page.getByRole('menuitem', { name: 'Mail outbox' }).click();
    await page.getByLabel('Filter by recipient').fill(PERSON.email);
    await page
      .getByRole('link', { name: /\/verification\// })
      .first()
      .waitFor();
    await shot(page, 'outbox');
    await page.close();
  });

  it('has a mobile navigation at 574 px, the events log, and logs out', async () => {
    const page = await signedIn({ width: 574, height: 900 });
    await page.getByRole('button', { name: 'Open navigation' }).click();
    await page.getByRole('link', { name: 'Sandbox' }).waitFor();
    // The drawer slides in: take the picture once it has arrived.
    await page.waitForFunction(
      `document.querySelector('nav[aria-label="Navigation"]')?.getBoundingClientRect().left >= 0`,
    );
    await shot(page, 'mobile-navigation');
    await page.keyboard.press('Escape');
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${e2e.platform.url}/logs`);
    await page.getByText('Engine Room').first().waitFor();
    await shot(page, 'logs');
    await page.getByRole('button', { name: 'Account' }).click();
    await page.getByRole('menuitem', { name: 'Logout' }).click();
    await page.waitForURL(/\/login/);
    // Signed out for real: the console sends the person back to /login.
    await page.goto(`${e2e.platform.url}/profile`);
    await page.waitForURL(/\/login\?backurl=%2Fprofile/);
    await page.close();
  });
});

if (!hasChromium)
  console.warn(`console e2e skipped: no Chromium at ${CHROMIUM} (apt-get install chromium; .ci/run does it)`);
