// The role matrix of spec 3 §6 walked in Debian's Chromium (playwright-core) against `npm start`'s
// entry point with a production build of the console, for the four roles of one organization:
// the super admin, the organization admin who founded it, a group admin and a member of its
// group. Each sees the settings gear and its entries, the settings screens and their sections,
// and the actions (Create Group, Generate Token / Add new, Add User, Edit Quota, Create new)
// exactly as the matrix says; the billing page (spec 2 §2) is open to every role, with the
// organization's records for administrator-type roles and one's own for the others.
// Billing records are written into the platform's database while it is stopped (the runner's
// way of writing them needs real runs), then the platform starts again on the same data.
// Screenshots at 1400 px and 574 px land in test-results/console/.
import fs from 'node:fs';
import path from 'node:path';
import { createDatabase } from '@sandflow/embedded/testing';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiCaller,
  type ConsoleE2E,
  hasChromium,
  login as loginAs,
  mailTo as mailToAs,
  overflow,
  settled,
  shot,
  signIn,
  startConsoleE2E,
  verify as verifyAs,
  type Who,
} from '../support/console-e2e.js';

const stamp = Date.now() % 100000;
const ADMIN = { email: 'root@example.com', password: 'Roles-E2e-Passw0rd!' };
const FOUNDER = {
  first_name: 'Grace',
  last_name: 'Hopper',
  email: `grace.${stamp}@example.org`,
  password: 'Compiler-A0-1952!',
  organization: `Harvard Mark ${stamp}`,
};
const GROUP_ADMIN = {
  first_name: 'Jean',
  last_name: 'Sammet',
  email: `jean.${stamp}@example.org`,
  password: 'Cobol-1959-Design!',
};
const MEMBER = {
  first_name: 'Kathleen',
  last_name: 'Booth',
  email: `kathleen.${stamp}@example.org`,
  password: 'Assembly-1947-Lang!',
};
const GROUP = 'Crew';

/**
 * Spec 3 §6, row by row, for each role (spec 1 §2.2 for the gear). `billing` is how many of the
 * seeded records the role's billing page lists: the organization's for administrator-type roles,
 * one's own otherwise.
 */
interface Rights {
  role: 'admin' | 'organization_admin' | 'group_admin' | 'user';
  who: Who;
  gear: boolean;
  superSettings: boolean;
  organizationSettings: boolean;
  usersSettings: boolean;
  /** Groups, users, invitations… of the own organization: Create Group, Generate Token, Add User. */
  manageOrganization: boolean;
  /** Edit user quota and UID, remove users from a group ('not shown' for the super admin: unchecked). */
  editQuota: boolean | 'not shown';
  /** Choose organization when inviting. */
  chooseOrganization: boolean;
  /** The Automatic Provisioner card (Organization Settings › Cluster Managers). */
  provisionerCard: boolean;
  billing: { scope: RegExp; records: number };
}
const ORGANIZATION_SCOPE = /^The step executions of the current organization/;
const OWN_SCOPE = /^Your step executions/;
// The records seeded below: 3 of the founder's, 2 of the group admin's, 1 of the member's.
const SEEDED = { founder: 3, groupAdmin: 2, member: 1 };
const MATRIX: Rights[] = [
  {
    role: 'admin',
    who: ADMIN,
    gear: true,
    superSettings: true,
    organizationSettings: true,
    usersSettings: true,
    manageOrganization: true,
    editQuota: 'not shown',
    chooseOrganization: true,
    provisionerCard: false,
    billing: { scope: ORGANIZATION_SCOPE, records: 6 },
  },
  {
    role: 'organization_admin',
    who: FOUNDER,
    gear: true,
    superSettings: false,
    organizationSettings: true,
    usersSettings: true,
    manageOrganization: true,
    editQuota: true,
    chooseOrganization: false,
    provisionerCard: true,
    billing: { scope: ORGANIZATION_SCOPE, records: 6 },
  },
  {
    role: 'group_admin',
    who: GROUP_ADMIN,
    gear: true,
    superSettings: false,
    organizationSettings: false,
    usersSettings: true,
    manageOrganization: false,
    editQuota: true,
    chooseOrganization: false,
    provisionerCard: false,
    billing: { scope: OWN_SCOPE, records: SEEDED.groupAdmin },
  },
  {
    role: 'user',
    who: MEMBER,
    gear: false,
    superSettings: false,
    organizationSettings: false,
    usersSettings: false,
    manageOrganization: false,
    editQuota: false,
    chooseOrganization: false,
    provisionerCard: false,
    billing: { scope: OWN_SCOPE, records: SEEDED.member },
  },
];

let e2e: ConsoleE2E;
const call = apiCaller(() => e2e.platform.url);
const login = (who: Who) => loginAs(call, who);
const mailTo = (email: string) => mailToAs(call, ADMIN, email);
const verify = (email: string) => verifyAs(call, ADMIN, email);
const signedIn = (who: Who, width: number) => signIn(e2e, who, width);
const forbidden = (page: Page) => page.getByTestId('settings-forbidden');

describe.skipIf(!hasChromium)('the role matrix (spec 3 §6) in Chromium', () => {
  beforeAll(async () => {
    e2e = await startConsoleE2E({ name: 'roles', admin: ADMIN });

    // The founder registers with an organization of their own (its admin) and invites two people,
    // who register through their invitations; a group with one as its admin and both as members.
    await call('POST', '/user', { ...FOUNDER, use_invitation: false });
    await verify(FOUNDER.email);
    const founder = await login(FOUNDER);
    const organization = await call<{ id: string }>('GET', '/organization', undefined, founder);
    await call('POST', '/invite', { users: [GROUP_ADMIN.email, MEMBER.email] }, founder);
    for (const person of [GROUP_ADMIN, MEMBER]) {
      const invitation = /invite=([\w-]+)/.exec(await mailTo(person.email))?.[1];
      await call('POST', '/user', { ...person, use_invitation: true, invitation_link: invitation });
      await verify(person.email);
    }
    const group = await call<{ id: string }>(
      'POST',
      '/group',
      {
        organization: organization.id,
        name: GROUP,
        members: [GROUP_ADMIN.email, MEMBER.email],
        admins: [GROUP_ADMIN.email],
      },
      founder,
    );
    const ids = await Promise.all(
      [FOUNDER, GROUP_ADMIN, MEMBER].map(async (who) => {
        const me = await call<{ id: string }>('GET', '/me', undefined, await login(who));
        return me.id;
      }),
    );
    // The super admin looks at the founder's organization: its current one.
    await call('POST', '/preferences/organization', { name: FOUNDER.organization }, await login(ADMIN));

    // Billing records, as the runner writes them when steps end (spec 2 §9 prices: 2 cores /
    // 2 GB at 0.0192 $/h × 1.5 = 0.0288 $/h = 28,800,000 nano-dollars an hour).
    await e2e.restart(async () => {
      const db = createDatabase({ pgliteDir: path.join(e2e.dataDir, 'pglite') });
      const hour = 3_600_000_000_000n;
      const owners = [
        ...Array.from({ length: SEEDED.founder }, () => ids[0]!),
        ...Array.from({ length: SEEDED.groupAdmin }, () => ids[1]!),
        ...Array.from({ length: SEEDED.member }, () => ids[2]!),
      ];
      await db('step_records').insert(
        owners.map((user, i) => ({
          run_uid: `uid-${i}`,
          run_name: `nightly-etl-${i}`,
          node_id: 'n1',
          attempt: '0',
          organization_id: organization.id,
          group_id: group.id,
          user_id: user,
          session: i % 2 ? 'session-b' : 'session-a',
          session_name: i % 2 ? 'Ad hoc' : 'Nightly ETL',
          sandbox_id: 'sb-1',
          sandbox_name: 'extract',
          status: 'Succeeded',
          cpu: 1000,
          memory: 1024,
          disk: 100,
          started_at: new Date(Date.UTC(2026, 10, 20, i)),
          stopped_at: new Date(Date.UTC(2026, 10, 20, i + 1)),
          duration_ns: String(hour * BigInt(i + 1)),
          machine_cpu: 2000,
          machine_memory: 2048,
          amount_nano: String(28_800_000n * BigInt(i + 1)),
        })),
      );
      await db.destroy();
    });
  }, 300_000);

  afterAll(async () => {
    await e2e?.close();
  });

  it.each(MATRIX)('$role: the gear and its entries', async (rights) => {
    const page = await signedIn(rights.who, 1400);
    const gear = page.getByRole('button', { name: 'Settings', exact: true });
    if (!rights.gear) {
      await page.getByRole('main').waitFor();
      expect(await gear.count()).toBe(0);
    } else {
      await gear.click();
      const entries = page.getByRole('menuitem');
      await entries.first().waitFor();
      const names = await entries.allInnerTexts();
      expect(names.includes('Super settings'), 'Super settings').toBe(rights.superSettings);
      expect(names.includes('Organization settings'), 'Organization settings').toBe(
        rights.organizationSettings,
      );
      expect(names.includes('Users settings'), 'Users settings').toBe(rights.usersSettings);
    }
    await page.close();
  });

  it.each(MATRIX)('$role: the settings screens open or refuse as the matrix says', async (rights) => {
    const page = await signedIn(rights.who, 1400);
    for (const [screen, allowed] of [
      ['/settings/admin', rights.superSettings],
      ['/settings/organization', rights.organizationSettings],
      ['/settings/users', rights.usersSettings],
    ] as const) {
      await page.goto(`${e2e.platform.url}${screen}`);
      if (allowed) {
        await page.getByRole('main').getByRole('heading').first().waitFor();
        await settled(page);
        expect(await forbidden(page).count(), screen).toBe(0);
      } else {
        await forbidden(page).waitFor();
      }
    }
    await page.close();
  });

  it.each(MATRIX.filter((r) => r.superSettings))(
    '$role: Super Settings tabs and Create new',
    async (rights) => {
      const page = await signedIn(rights.who, 1400);
      await page.goto(`${e2e.platform.url}/settings/admin`);
      const tabs = page.getByRole('navigation', { name: 'Super Settings' }).getByRole('button');
      await tabs.first().waitFor();
      expect(await tabs.allInnerTexts()).toEqual([
        'Organizations',
        'Groups',
        'Users',
        'Cluster Managers',
        'Miscellaneous',
      ]);
      await expect.poll(() => page.getByRole('button', { name: 'Create new' }).isEnabled()).toBe(true);
      await page.close();
    },
  );

  it.each(MATRIX.filter((r) => r.organizationSettings))(
    '$role: Organization Settings sections, Create Group, the cluster token and the Automatic Provisioner card',
    async (rights) => {
      const page = await signedIn(rights.who, 1400);
      await page.goto(`${e2e.platform.url}/settings/organization`);
      const sections = page.getByRole('navigation', { name: 'Organization Settings' }).getByRole('button');
      await sections.first().waitFor();
      expect(await sections.allInnerTexts()).toEqual([
        'Admin',
        'Groups',
        'Users',
        'Cluster Managers',
        'Organization Registry',
        'Mount Points',
      ]);
      await page.goto(`${e2e.platform.url}/settings/organization?section=groups`);
      const create = page.getByRole('button', { name: 'Create Group' });
      await create.waitFor();
      expect(await create.isEnabled()).toBe(rights.manageOrganization);
      await page.goto(`${e2e.platform.url}/settings/organization?section=clusterManagers`);
      const token = page.getByRole('button', { name: /^(Add new|Generate Token)$/ }).first();
      await token.waitFor();
      expect(await token.isEnabled()).toBe(rights.manageOrganization);
      expect(
        await page.getByRole('region', { name: 'Automatic Provisioner' }).count(),
        'Automatic Provisioner card',
      ).toBe(rights.provisionerCard ? 1 : 0);
      await page.close();
    },
  );

  it.each(MATRIX.filter((r) => r.usersSettings))(
    '$role: Users Settings — Add User (choosing the organization or not), Edit Quota and Remove from group',
    async (rights) => {
      const page = await signedIn(rights.who, 1400);
      await page.goto(`${e2e.platform.url}/settings/users`);
      await page.getByRole('main').getByRole('heading').first().waitFor();
      await settled(page);
      expect(await page.getByRole('button', { name: 'Add User' }).count(), 'Add User').toBe(
        rights.manageOrganization ? 1 : 0,
      );
      if (rights.manageOrganization) {
        await page.getByRole('button', { name: 'Add User' }).click();
        const invite = page.getByRole('dialog', { name: 'Invite new users' });
        await invite.getByLabel('E-mail addresses').waitFor();
        expect(await invite.getByLabel('Organization').count(), 'choose the organization').toBe(
          rights.chooseOrganization ? 1 : 0,
        );
        await invite.getByRole('button', { name: 'Cancel' }).click();
        await invite.waitFor({ state: 'detached' });
      }
      if (rights.editQuota === 'not shown') return page.close();
      const table = page.getByRole('table', { name: `Members of ${GROUP}` });
      await table.waitFor();
      const edit = table.getByRole('button', { name: `Edit the quota of ${MEMBER.email}` });
      const remove = table.getByRole('button', { name: `Remove ${MEMBER.email} from the group` });
      expect(await edit.isEnabled(), 'Edit Quota').toBe(rights.editQuota);
      expect(await remove.isEnabled(), 'Remove from group').toBe(rights.editQuota);
      await page.close();
    },
  );

  it.each(MATRIX)('$role: the billing page, with the records the role may see', async (rights) => {
    const page = await signedIn(rights.who, 1400);
    await page.goto(`${e2e.platform.url}/billing`);
    await page.getByRole('heading', { level: 1, name: 'Billing' }).waitFor();
    await page.getByText(rights.billing.scope).waitFor();
    const records = page.getByRole('table', { name: 'Billing records' });
    await records.waitFor();
    await expect.poll(() => records.getByRole('row').count()).toBe(rights.billing.records + 1);
    await page.getByText(new RegExp(`^${rights.billing.records} records? ·`)).waitFor();
    await page.close();
  });

  it("Edit Organization: the super admin enables the founder's automatic provisioner, whose card then takes limits", async () => {
    const founder = await signedIn(FOUNDER, 1400);
    await founder.goto(`${e2e.platform.url}/settings/organization?section=clusterManagers`);
    const card = founder.getByRole('region', { name: 'Automatic Provisioner' });
    await card.getByText('The super admin has not enabled the automatic provisioner').waitFor();
    expect(await card.getByRole('switch', { name: 'Use the automatic provisioner' }).isDisabled()).toBe(true);

    const root = await signedIn(ADMIN, 1400);
    await root.goto(`${e2e.platform.url}/settings/admin?tab=organizations`);
    await root.getByRole('button', { name: `Edit ${FOUNDER.organization}` }).click();
    const dialog = root.getByRole('dialog', { name: 'Edit Organization' });
    await dialog.getByRole('switch', { name: 'Enable the automatic provisioner' }).check();
    await dialog.getByRole('spinbutton', { name: 'CPU limit (cores)' }).fill('2');
    await dialog.getByRole('spinbutton', { name: 'Memory limit (GB)' }).fill('4');
    await shot(root, 'super-edit-organization-1400');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await root.getByText(`Organization ${FOUNDER.organization} updated.`).waitFor();
    await dialog.waitFor({ state: 'detached' });
    await root.close();

    await founder.reload();
    await card.getByRole('switch', { name: 'Use the automatic provisioner' }).waitFor();
    await expect
      .poll(() => card.getByRole('switch', { name: 'Use the automatic provisioner' }).isEnabled())
      .toBe(true);
    expect(await card.getByText('The super admin has not enabled').count()).toBe(0);
    await founder.close();
  });

  it('billing page screenshots at 1400 px and 574 px, the CSV downloads, no horizontal overflow', async () => {
    const wide = await signedIn(FOUNDER, 1400);
    await wide.goto(`${e2e.platform.url}/billing`);
    await wide.getByRole('table', { name: 'Billing records' }).getByRole('row').nth(6).waitFor();
    // The total: 28,800,000 × (1 + 2 + … + 6) nano-dollars = $0.6048 → $0.60.
    expect(await wide.getByTestId('billing-total').innerText()).toBe('$0.60');
    await shot(wide, 'billing-1400');
    const [download] = await Promise.all([
      wide.waitForEvent('download'),
      wide.getByRole('link', { name: 'Download CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('billing.csv');
    const csv = fs
      .readFileSync((await download.path())!, 'utf8')
      .trim()
      .split(/\r?\n/);
    expect(csv).toHaveLength(7);
    expect(csv[0]).toMatch(/^id,timestamp,session/);
    await wide.close();

    const narrow = await signedIn(FOUNDER, 574);
    await narrow.goto(`${e2e.platform.url}/billing`);
    await narrow.getByRole('table', { name: 'Billing records' }).getByRole('row').nth(6).waitFor();
    await shot(narrow, 'billing-574');
    expect(await overflow(narrow)).toBeLessThanOrEqual(0);
    await narrow.close();
  });
});
