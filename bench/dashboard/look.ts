// A look at the session screens and the run dashboard in Chromium (not a benchmark): screenshots
// at 1400 and 574 px wide, in en, it and fr, empty and full, into $LOOK_DIR (default /tmp/look).
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { api, EMAIL, layeredGraph, PASSWORD, seed, startPlatform } from './platform.js';

const out = process.env.LOOK_DIR ?? '/tmp/look';
fs.mkdirSync(out, { recursive: true });

async function shoot(page: Page, name: string) {
  await page.waitForTimeout(800);
  await page.screenshot({ path: path.join(out, `${name}.png`), fullPage: true });
}

async function main() {
  const platform = await startPlatform();
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox'],
  });
  try {
    const { cookie, ids, me, group } = await seed(platform.url, platform.dataDir);
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(`${platform.url}/login`);
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForURL(/dashboard/);
    await page.goto(`${platform.url}/session/list`);
    await shoot(page, 'list-empty-1400-en');
    const graph = layeredGraph(3, ids, me);
    graph.edges.push(
      { id: 'a', from: 'n0', to: 'n1', type: 'single' },
      { id: 'b', from: 'n1', to: 'n2', type: 'single' },
    );
    const wf = (
      await api(platform.url, cookie, 'POST', '/workflow', {
        name: 'ndvi',
        version: '1.0.0',
        tags: [],
        ...graph,
      })
    ).result as { uuid: string };
    const body = {
      name: 'nightly ndvi',
      workflow_uuid: wf.uuid,
      group,
      schedules: [
        {
          start: new Date(Date.now() + 86_400_000).toISOString(),
          periodic_label: 'daily',
          periodic_value: 1,
        },
      ],
      events: [],
      attempts: 1,
      notifications: ['ann@example.org'],
      notify_group: false,
      notify_organization: false,
      session_variables: {},
      sandbox_resources: {},
      cluster_pref: [],
      has_cluster_pref: false,
    };
    const started = (await api(platform.url, cookie, 'POST', '/session/instance', body)).result as {
      schedule_id: string;
      run_uuid: string;
    };
    await api(platform.url, cookie, 'POST', '/session', { ...body, name: 'weekly report', schedules: [] });
    await page.waitForTimeout(8000);
    for (const language of ['en', 'it', 'fr']) {
      await page.evaluate(`localStorage.setItem('language', '${language}')`);
      for (const width of [1400, 574]) {
        await page.setViewportSize({ width, height: 900 });
        await page.goto(`${platform.url}/session/list`);
        await page.waitForSelector('[data-testid="session-row"]');
        await shoot(page, `list-${width}-${language}`);
        await page.locator('[data-testid="session-row"]').first().getByRole('button').first().click();
        await page.waitForSelector('[data-testid="run-row"]');
        await shoot(page, `runs-${width}-${language}`);
        await page.goto(`${platform.url}/schedule/${started.schedule_id}`);
        await page.waitForSelector('h1');
        await shoot(page, `edit-${width}-${language}`);
        await page.goto(`${platform.url}/session/create`);
        await shoot(page, `create-${width}-${language}`);
        await page.goto(`${platform.url}/dashboard/session/${started.schedule_id}/${started.run_uuid}`);
        await page.waitForSelector('.react-flow__node-runSandbox');
        await page.waitForTimeout(2500);
        await shoot(page, `dashboard-${width}-${language}`);
      }
    }
    await page.evaluate(`localStorage.setItem('language', 'en')`);
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.goto(`${platform.url}/dashboard/session/${started.schedule_id}/${started.run_uuid}`);
    await page.waitForSelector('.react-flow__node-runSandbox');
    await page.getByRole('tab', { name: 'History' }).click();
    await shoot(page, 'dashboard-history-1400-en');
    await page.getByRole('tab', { name: 'Files' }).click();
    await shoot(page, 'dashboard-files-1400-en');
    await page.locator('.react-flow__node-runSandbox').first().click({ button: 'right' });
    await shoot(page, 'dashboard-menu-1400-en');
    await page.goto(`${platform.url}/dashboard/session/${started.schedule_id}/nope`);
    await shoot(page, 'dashboard-invalid-1400-en');
    const run = (await api(platform.url, cookie, 'GET', `/run/${started.run_uuid}`)).result;
    fs.writeFileSync(path.join(out, 'run.json'), JSON.stringify(run, null, 2));
  } finally {
    await browser.close();
    await platform.stop();
  }
}

await main();
