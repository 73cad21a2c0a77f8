// The sandbox journey of issue 13 in Chromium against `npm start`'s entry point: a person builds a
// sandbox from the busybox image in the local store (the terminal, an upload, the entrypoint),
// saves it, finds it in the list and in `kubectl get sandboxes` with its image digest, renames,
// clones and force-deletes it once a workflow uses it. Screenshots in test-results/console/sandboxes.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { findBwrap } from '@sandflow/embedded/runner';
import { buildBusyboxImage, copyImage, LayoutStore } from '@sandflow/images';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiCaller,
  CHROMIUM,
  type ConsoleE2E,
  hasChromium,
  login as loginAs,
  shot as shotAs,
  signIn,
  startConsoleE2E,
  verify,
  type Who,
} from '../support/console-e2e.js';

const run = promisify(execFile);
const missing = !hasChromium
  ? `no Chromium at ${CHROMIUM} (apt-get install chromium)`
  : !findBwrap()
    ? 'no bwrap: the sandbox builder needs bubblewrap (apt-get install bubblewrap)'
    : undefined;
const ADMIN = { email: 'root@example.com', password: 'Sandbox-E2e-Passw0rd!' };
const PERSON = {
  first_name: 'Grace',
  last_name: 'Hopper',
  email: `grace.${Date.now()}@example.org`,
  password: 'Compiler-A0-1952!',
  organization: `Harvard Mark ${Date.now() % 100000}`,
};
const IMAGE = 'sandflow.local/busybox';

let e2e: ConsoleE2E;
// What the workflow journey made, for the session journey after it.
let journey: { workflow: string; group: string } | undefined;

const api = apiCaller(() => e2e.platform.url);
const login = (who: Who) => loginAs(api, who);

async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await run('kubectl', ['--kubeconfig', path.join(e2e.dataDir, 'kubeconfig'), ...args]);
  return stdout;
}

const shot = (page: Page, name: string) => shotAs(page, `sandboxes/${name}`);

/** busybox-static as `sandflow.local/busybox:latest` in the platform's local store (npm run images:local). */
async function importBusybox(imagesDir: string) {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-busybox-'));
  try {
    const busybox = await buildBusyboxImage(scratch);
    const colon = busybox.reference.lastIndexOf(':');
    await copyImage({
      from: new LayoutStore(busybox.oci),
      fromRepository: busybox.reference.slice(0, colon),
      reference: busybox.reference.slice(colon + 1),
      to: new LayoutStore(imagesDir),
      toRepository: IMAGE,
      tag: 'latest',
    });
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

describe.skipIf(!!missing)('sandbox and workflow journeys (Chromium)', () => {
  beforeAll(async () => {
    e2e = await startConsoleE2E({
      name: 'sandbox',
      admin: ADMIN,
      env: { SANDFLOW_RUNTIME: 'bwrap' },
      timeoutMs: 180_000,
      prepare: (dataDir) => importBusybox(path.join(dataDir, 'images')),
    });
    // A person with an organization of their own, verified through the outbox.
    await api('POST', '/user', { ...PERSON, use_invitation: false });
    await verify(api, ADMIN, PERSON.email);
  }, 300_000);

  afterAll(async () => {
    await e2e?.close();
  });

  it('builds a sandbox in the terminal, saves it, and renames, clones and force-deletes it', async () => {
    const page = await signIn(e2e, PERSON, 1400);

    // The empty list offers to create one.
    await page.goto(`${e2e.platform.url}/sandbox/list`);
    await page
      .getByRole('link', { name: 'Create new Sandbox' })
      .or(page.getByRole('button', { name: 'Create new Sandbox' }))
      .first()
      .click();
    await page.waitForURL(/\/sandbox\/create/);
    await page.getByLabel('Source image').fill(IMAGE);
    await page.getByText('1 version').waitFor({ timeout: 30_000 });
    await page.getByLabel('Sandbox name').fill('answer_box');
    await shot(page, 'create-image');
    await page.getByRole('button', { name: 'Create', exact: true }).click();

    // The terminal: a shell in the busybox image.
    const terminal = page.locator('.xterm');
    await terminal.waitFor({ timeout: 60_000 });
    await page.locator('.xterm-rows').getByText('$', { exact: false }).first().waitFor({ timeout: 30_000 });
    await terminal.click();
    await page.keyboard.type('echo $((6*7)) > /answer.txt; cat /answer.txt; echo done-$((1+1))\n');
    await page.locator('.xterm-rows').getByText('done-2').waitFor({ timeout: 30_000 });
    expect(await page.locator('.xterm-rows').innerText()).toContain('42');
    await shot(page, 'terminal');

    // An upload lands in the container.
    await page
      .locator('input[type=file]')
      .first()
      .setInputFiles({
        name: 'notes.txt',
        mimeType: 'text/plain',
        buffer: Buffer.from('uploaded through the console\n'),
      });
    await page.getByText('notes.txt uploaded.').waitFor({ timeout: 30_000 });

    await page.getByLabel('Entrypoint').fill('cat /answer.txt');
    await shot(page, 'before-save');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Sandbox created correctly.').waitFor({ timeout: 60_000 });

    // kubectl sees the same object, with the committed image's digest.
    const sandboxes = JSON.parse(await kubectl('get', 'sandboxes', '-A', '-o', 'json')) as {
      items: {
        metadata: { name: string };
        spec: { name: string; entrypoint: string; image?: { ref?: string } };
      }[];
    };
    const saved = sandboxes.items.find((s) => s.spec.name === 'answer_box');
    expect(saved?.spec.entrypoint).toBe('cat /answer.txt');
    expect(saved?.spec.image?.ref).toMatch(/^sandflow\.local\/.+\/answer_box:1\.0\.0@sha256:[0-9a-f]{64}$/);

    // The list: rename inline, clone.
    await page.goto(`${e2e.platform.url}/sandbox/list`);
    await page.getByRole('button', { name: 'answer_box', exact: true }).click();
    const rename = page.getByLabel('Rename answer_box');
    await rename.fill('answer_box_v2');
    await rename.press('Enter');
    await page.getByText('Sandbox renamed correctly.').waitFor();
    await expect.poll(async () => kubectl('get', 'sandboxes', '-A')).toContain('answer_box_v2');
    await page.getByRole('button', { name: 'Clone answer_box_v2' }).click();
    await page.getByText('Sandbox cloned correctly.').waitFor();
    await page.getByText('answer_box_v2_copy').waitFor();
    await shot(page, 'list');

    // A workflow uses it: the delete comes back with it, and the forced delete invalidates it.
    const token = await login(PERSON);
    const workflow = await api<{ uuid: string }>(
      'POST',
      '/workflow',
      {
        name: 'uses_answer',
        version: '1.0.0',
        nodes: [{ id: 'n1', name: 'answer', x: 100, y: 100, src_id: saved!.metadata.name }],
        edges: [{ id: 'e0', from: 'start', to: 'n1', type: 'start', condition: 'starting' }],
        switches: [],
      },
      token,
    );
    await page.getByRole('button', { name: 'Delete answer_box_v2', exact: true }).click();
    await page.getByText('Confirm deleting: answer_box_v2').waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByText('Sandboxes used by workflows').waitFor();
    await page.getByText('Used by: uses_answer').waitFor();
    const forced = page.getByRole('dialog').getByRole('button', { name: 'Delete' });
    await expect(forced.isDisabled()).resolves.toBe(true);
    await page.getByRole('dialog').getByRole('checkbox').check();
    await shot(page, 'forced-delete');
    await forced.click();
    await page.getByText('Sandbox deleted correctly.').waitFor();
    await expect
      .poll(async () => kubectl('get', 'sandboxes', '-A'), { timeout: 30_000 })
      .not.toMatch(/answer_box_v2\s/);
    await expect
      .poll(
        async () =>
          (await api<{ valid: boolean | null }>('GET', `/workflow/${workflow.uuid}`, undefined, token)).valid,
        {
          timeout: 60_000,
        },
      )
      .toBe(false);
    await page.close();
  }, 300_000);

  it('draws a workflow in the editor, saves it valid, and a session runs it to COMPLETED', async () => {
    const admin = await login(ADMIN);
    const token = await login(PERSON);
    // Room to run: an organization quota and a group of the person with a quota of its own.
    const organizations = await api<{ id: string; name: string }[]>(
      'GET',
      '/organizations',
      undefined,
      admin,
    );
    const org = organizations.find((o) => o.name === PERSON.organization)!;
    await api('PUT', `/organizations/${org.id}`, { quota: { cpu: 1500, memory: 2048, disk: 4096 } }, admin);
    const group = await api<{ id: string }>(
      'POST',
      '/group',
      {
        organization: org.id,
        name: 'Runners',
        members: [PERSON.email],
        quota: { cpu: 1000, memory: 1024, disk: 2048 },
      },
      admin,
    );
    for (const name of ['hello', 'world'])
      await api(
        'POST',
        '/sandbox',
        {
          name,
          entrypoint: `echo ${name} from the busybox image`,
          source_image: { image: IMAGE, version: 'latest' },
        },
        token,
      );

    const page = await signIn(e2e, PERSON, 1400);
    await page.goto(`${e2e.platform.url}/workflow/create`);
    await page.getByRole('textbox', { name: /^Name\s*\*?$/ }).fill('journey');
    await page.getByRole('button', { name: 'Add hello to the canvas' }).click();
    await page.getByRole('button', { name: 'Add world to the canvas' }).click();
    const node = (name: string) => page.locator(`[data-testid=sandbox-node][aria-label="${name}"]`);
    await node('world').waitFor();

    // An arrow hello → world through the node's menu; a self arrow is refused with the spec's toast.
    await node('hello').click({ button: 'right' });
    await page.getByRole('menuitem', { name: 'Add Arrow' }).click();
    await node('world').click();
    await node('world').click({ button: 'right' });
    await page.getByRole('menuitem', { name: 'Add Arrow' }).click();
    await node('world').click();
    await page.getByText('Source and destination are the same').waitFor();
    await page.keyboard.press('Escape');
    // Undo takes the arrow away, redo brings it back; Order lays the graph out.
    const idOf = (name: string) =>
      page.locator('.react-flow__node', { has: node(name) }).getAttribute('data-id');
    const arrow = page.locator(
      `.react-flow__edge[aria-label="Edge from ${await idOf('hello')} to ${await idOf('world')}"]`,
    );
    await expect.poll(() => arrow.count()).toBe(1);
    await page.keyboard.press('Control+z');
    await expect.poll(() => arrow.count()).toBe(0);
    await page.keyboard.press('Control+y');
    await expect.poll(() => arrow.count()).toBe(1);
    await page.locator('.react-flow__pane').click({ button: 'right', position: { x: 700, y: 500 } });
    await page.getByRole('menuitem', { name: 'Order' }).click();
    await shot(page, 'workflow-editor');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Workflow created successfully.').waitFor();
    await page.waitForURL(/\/workflow\/edit\/[\w-]+/);
    const uuid = /\/workflow\/edit\/([\w-]+)/.exec(page.url())![1]!;
    await page.reload();
    await node('world').waitFor();
    expect(await page.locator('[data-testid=sandbox-node]').count()).toBe(2);

    // The saved graph: hello → world, and the operator finds it valid (kubectl sees it too).
    const saved = await api<{
      nodes: { id: string; name: string }[];
      edges: { from: string; to: string; type: string }[];
    }>('GET', `/workflow/${uuid}`, undefined, token);
    const id = (name: string) => saved.nodes.find((n) => n.name === name)!.id;
    expect(saved.edges).toContainEqual(
      expect.objectContaining({ from: id('hello'), to: id('world'), type: 'single' }),
    );
    await expect
      .poll(
        async () =>
          (await api<{ valid: boolean | null }>('GET', `/workflow/${uuid}`, undefined, token)).valid,
        {
          timeout: 60_000,
        },
      )
      .toBe(true);
    expect(await kubectl('get', 'workflows.sandflow.io', '-A')).toContain(uuid);

    journey = { workflow: uuid, group: group.id };

    // A session started now runs both steps in the busybox image.
    const started = await api<{ schedule_id: string; run_uuid: string }>(
      'POST',
      '/session/instance',
      { name: 'journey now', workflow_uuid: uuid, group: group.id },
      token,
    );
    await expect
      .poll(
        async () =>
          (await api<{ status: string }>('GET', `/run/${started.run_uuid}`, undefined, token)).status,
        {
          timeout: 120_000,
          interval: 1000,
        },
      )
      .toBe('COMPLETED');
    await page.goto(`${e2e.platform.url}/dashboard/session/${started.schedule_id}/${started.run_uuid}`);
    await page.waitForTimeout(2000);
    await shot(page, 'run-dashboard');
    await page.close();
  }, 300_000);

  it('creates a session in the form, starts it, follows the run from the list to the dashboard and its log', async () => {
    expect(journey, 'the workflow journey ran first').toBeDefined();
    const page = await signIn(e2e, PERSON, 1400);

    await page.goto(`${e2e.platform.url}/session/create`);
    await page.getByRole('textbox', { name: /^Name\s*\*?$/ }).fill('nightly journey');
    await page.getByRole('combobox', { name: /^Workflow/ }).click();
    await page.getByRole('option', { name: /^journey/ }).click();
    await page.getByRole('combobox', { name: /^Group/ }).click();
    await page.getByRole('option', { name: 'Runners' }).click();
    await shot(page, 'session-form');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Session saved successfully.').waitFor();
    await page.waitForURL(/\/schedule\/[\w-]+/);
    const session = /\/schedule\/([\w-]+)/.exec(page.url())![1]!;
    await page.getByRole('button', { name: 'Start Now' }).click();
    await page.getByText('Run request successfully.').first().waitFor();

    // The list shows it; its runs modal reaches COMPLETED and opens the dashboard.
    await page.goto(`${e2e.platform.url}/session/list`);
    const row = page.getByRole('row', { name: /nightly journey/ });
    await row.waitFor();
    await row.getByRole('button', { name: 'Show all runs' }).click();
    const dialog = page.getByRole('dialog');
    await expect
      .poll(
        async () => {
          await dialog.getByRole('button', { name: 'Refresh' }).click();
          return dialog.getByText('COMPLETED').count();
        },
        { timeout: 120_000, interval: 2000 },
      )
      .toBeGreaterThan(0);
    await shot(page, 'session-runs');
    await dialog.getByRole('button', { name: 'View detail' }).first().click();
    await page.waitForURL(new RegExp(`/dashboard/session/${session}/[\\w-]+`));
    await page.getByRole('combobox', { name: 'Sandbox' }).click();
    await page.getByRole('option', { name: 'world' }).click();
    await expect
      .poll(() => page.locator('.xterm-rows').innerText(), { timeout: 30_000 })
      .toContain('world from the busybox image');
    await shot(page, 'run-dashboard-log');
    await page.close();
  }, 300_000);
});

if (missing) console.warn(`sandbox journey skipped: ${missing}`);
