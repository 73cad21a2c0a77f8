// Organization Settings › Cluster Managers, Registry and Mount Points in Debian's Chromium
// (playwright-core) against `npm start`'s entry point with a production build of the console:
// an organization admin generates an agent token and sees the new cluster manager in the
// table. Screenshots at 1400 px and 574 px land in test-results/console/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiCaller,
  type ConsoleE2E,
  hasChromium,
  login,
  overflow,
  settled,
  shot,
  signIn,
  startConsoleE2E,
  verify,
} from '../support/console-e2e.js';

const ADMIN = { email: 'root@example.com', password: 'Clusters-E2e-Passw0rd!' };
const PERSON = {
  first_name: 'Grace',
  last_name: 'Hopper',
  email: `grace.${Date.now()}@example.org`,
  password: 'Compiler-A0-1952!',
  organization: `Harvard Mark ${Date.now() % 100000}`,
};

let e2e: ConsoleE2E;
const call = apiCaller(() => e2e.platform.url);

describe.skipIf(!hasChromium)('Organization Settings › cluster managers (Chromium)', () => {
  beforeAll(async () => {
    e2e = await startConsoleE2E({ name: 'clusters', admin: ADMIN });
    // A person with an organization of their own, verified through the mail they got.
    await call('POST', '/user', { ...PERSON, use_invitation: false });
    await verify(call, ADMIN, PERSON.email);
  }, 180_000);

  afterAll(async () => {
    await e2e?.close();
  });

  it('generates a token once and shows the new cluster manager in the table', async () => {
    const page = await signIn(e2e, PERSON, 1400);
    await page.goto(`${e2e.platform.url}/settings/organization?section=clusterManagers`);
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
    const me = await login(call, PERSON);
    expect((await call<{ algorithm: string }>('GET', '/organization', undefined, me)).algorithm).toBe(
      'fill_one',
    );
    await page.close();
  });

  it('shows words, not dictionary keys, in every Organization Settings section', async () => {
    const page = await signIn(e2e, PERSON, 1400);
    for (const section of ['admin', 'groups', 'users', 'clusterManagers', 'registry', 'mountPoints']) {
      await page.goto(`${e2e.platform.url}/settings/organization?section=${section}`);
      await page.getByRole('main').getByRole('button').first().waitFor();
      await settled(page);
      const text = await page.getByRole('main').innerText();
      expect(text, section).not.toMatch(
        /\b(admin|groups|users|invite|quota|clusters|registry|mountPoints|columns)\.[a-zA-Z]/,
      );
    }
    await page.close();
  });

  it('fits the sections at 574 px', async () => {
    const page = await signIn(e2e, PERSON, 574);
    for (const section of ['clusterManagers', 'registry', 'mountPoints']) {
      await page.goto(`${e2e.platform.url}/settings/organization?section=${section}`);
      await (
        section === 'clusterManagers'
          ? page.getByRole('radio', { name: 'Round Robin' })
          : page.getByRole('button', { name: 'Save' })
      ).waitFor();
      await shot(page, `${section}-574`);
      expect(await overflow(page), section).toBeLessThanOrEqual(0);
    }
    await page.close();
  });
});
