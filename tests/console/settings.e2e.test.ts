// Users Settings and Super Settings in Debian's Chromium (playwright-core) against `npm start`'s
// entry point with a production build of the console: an organization admin edits a member's
// quota and UID; the super admin walks every Super Settings tab and creates and deletes an
// organization. Screenshots at 1400 px and 574 px land in test-results/console/.
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

let e2e: ConsoleE2E;
const call = apiCaller(() => e2e.platform.url);

describe.skipIf(!hasChromium)('Users Settings and Super Settings (Chromium)', () => {
  beforeAll(async () => {
    e2e = await startConsoleE2E({ name: 'settings', admin: ADMIN });
    // A person with an organization of their own, verified through the mail they got, and a
    // group they are a member of.
    await call('POST', '/user', { ...PERSON, use_invitation: false });
    await verify(call, ADMIN, PERSON.email);
    const me = await login(call, PERSON);
    const organization = await call<{ id: string }>('GET', '/organization', undefined, me);
    await call(
      'POST',
      '/group',
      { organization: organization.id, name: 'Engine Room', members: [PERSON.email] },
      me,
    );
  }, 180_000);

  afterAll(async () => {
    await e2e?.close();
  });

  it('Users Settings: an organization admin sets a member’s quota and UID', async () => {
    const page = await signIn(e2e, PERSON, 1400);
    await page.goto(`${e2e.platform.url}/settings/users`);
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

    const narrow = await signIn(e2e, PERSON, 574);
    await narrow.goto(`${e2e.platform.url}/settings/users`);
    await narrow.getByRole('table', { name: 'Members of Engine Room' }).waitFor();
    await shot(narrow, 'users-settings-574');
    expect(await overflow(narrow)).toBeLessThanOrEqual(0);
    await narrow.close();
  });

  it('Super Settings: every tab shows words; an organization is created and deleted with its users', async () => {
    const page = await signIn(e2e, ADMIN, 1400);
    for (const tab of ['organizations', 'groups', 'users', 'cluster_managers', 'miscellaneous']) {
      await page.goto(`${e2e.platform.url}/settings/admin?tab=${tab}`);
      await page.getByRole('main').getByRole('button').first().waitFor();
      await settled(page);
      expect(await page.getByRole('main').innerText(), tab).not.toMatch(KEYS);
      await shot(page, `super-${tab}-1400`);
    }

    await page.goto(`${e2e.platform.url}/settings/admin?tab=organizations`);
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

    const narrow = await signIn(e2e, ADMIN, 574);
    for (const tab of ['organizations', 'groups', 'users', 'miscellaneous']) {
      await narrow.goto(`${e2e.platform.url}/settings/admin?tab=${tab}`);
      await narrow.getByRole('main').getByRole('button').first().waitFor();
      await settled(narrow);
      await shot(narrow, `super-${tab}-574`);
      expect(await overflow(narrow), tab).toBeLessThanOrEqual(0);
    }
    await narrow.close();
  });
});
