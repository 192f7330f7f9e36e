import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect as see } from '@playwright/test';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MissionControl } from '../../../main/mission-control/service';
import type { WebHost } from '../../../main/web/web-host';
import { closeMissionControlWeb, openMissionControlWeb, type MissionControlWeb } from '../../support/mission-control-web';
import { seriousA11yViolations } from '../../support/axe';
import { FIXED_SUM, ForkHarness } from '../../support/fork-harness';

/**
 * Issue 30 item 2 in real Chromium over the loopback web host: on an npm repository, New Fork's
 * "Propose from the repository" loads `citadel init`'s proposal into the workflow editor with its
 * reasons; the preview shows its setup and verifier, and the fork started with it runs (its
 * `npm ci` of a lock without dependencies, contained, then `npm test`) to ready.
 */

const STEP = { timeout: 30_000 };

let base: string;
let h: ForkHarness;
let service: MissionControl;
let host: WebHost;
let browser: Browser;
let web: MissionControlWeb | undefined;

beforeAll(async () => {
  base = mkdtempSync(path.join(tmpdir(), 'citadel-e2e-init-'));
  h = new ForkHarness(path.join(base, 'h'));
  writeFileSync(path.join(h.repo, 'package.json'), `${JSON.stringify({ name: 'sum', version: '1.0.0', private: true, type: 'module', scripts: { test: 'node --test test/sum.test.js' } }, null, 2)}\n`);
  writeFileSync(path.join(h.repo, 'package-lock.json'), `${JSON.stringify({ name: 'sum', version: '1.0.0', lockfileVersion: 3, requires: true, packages: { '': { name: 'sum', version: '1.0.0' } } }, null, 2)}\n`);
  writeFileSync(path.join(h.repo, '.gitignore'), 'node_modules/\n');
  h.gitIn(h.repo, 'add', '-A');
  h.gitIn(h.repo, 'commit', '-q', '-m', 'npm project');
  await h.simulate({ edits: [{ path: 'src/sum.js', content: FIXED_SUM }] });
  web = await openMissionControlWeb(base, h);
  ({ service, host, browser } = web);
}, 180_000);

afterAll(async () => {
  await closeMissionControlWeb(web);
  if (base !== undefined) rmSync(base, { recursive: true, force: true });
}, 60_000);

describe("New Fork offers citadel init's proposal", () => {
  it('one click loads it with its reasons, and the fork it starts runs to ready', { timeout: 120_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(host.url);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'New fork' }).click();
    await see(page.getByRole('heading', { level: 1, name: 'New fork' })).toBeVisible(STEP);
    await page.getByLabel('Repository path').fill(h.repo);
    await page.getByLabel('Objective').fill('Fix the sum function');

    await page.getByRole('button', { name: 'Propose from the repository' }).click();
    const reasons = page.getByRole('list', { name: 'Why this workflow was proposed' });
    await see(reasons).toContainText('package-lock.json → npm ci', STEP);
    await see(reasons).toContainText('package.json scripts.test: node --test test/sum.test.js → npm test');
    await see(page.getByRole('textbox', { name: 'Verifier command' })).toHaveValue('npm');
    await see(page.getByRole('textbox', { name: 'Protected paths' })).toHaveValue('test/**\npackage-lock.json\n.citadel/**');
    expect(await seriousA11yViolations(page, 'new fork with a proposed workflow')).toEqual([]);

    await page.getByRole('button', { name: 'Preview digests and argv' }).click();
    const preview = page.getByRole('region', { name: 'Preview' });
    await see(preview.getByText(/Workflow: edited here/)).toBeVisible(STEP);
    await see(preview.getByText('npm-ci: npm ci · network registries')).toBeVisible();
    await see(preview.getByText(/then npm test/)).toBeVisible();

    await page.getByRole('button', { name: 'Start fork' }).click();
    await see(page).toHaveURL(/#\/fork\/[^/]+$/, STEP);
    const forkId = decodeURIComponent(new URL(page.url()).hash.replace('#/fork/', ''));
    await service.drained();
    const status = await service.handle('forkStatus', { fork_id: forkId });
    expect(status.ok && status.value.state).toBe('ready');
    expect(status.ok && status.value.branches.map((b) => [b.branch_id, b.state])).toEqual([
      ['branch-claude', 'passed'],
      ['branch-codex', 'passed'],
    ]);
    await context.close();
  });
});
