import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect as see } from '@playwright/test';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MissionControl } from '../../../main/mission-control/service';
import type { WebHost } from '../../../main/web/web-host';
import { sha256Digest } from '../../../shared/digest';
import { closeMissionControlWeb, openMissionControlWeb, type MissionControlWeb } from '../../support/mission-control-web';
import { seriousA11yViolations } from '../../support/axe';
import { FIXED_SUM, ForkHarness } from '../../support/fork-harness';

/**
 * Issue 30 review F1 in real Chromium over the loopback web host: a repository that commits its
 * own `.citadel/workflow.json` with nothing protected. New Fork's preview lists what the file runs
 * (the empty protected list flagged), Start stays disabled until the operator ticks it, and the fork
 * started with the tick runs to ready and keeps the confirmation for that file.
 */

const STEP = { timeout: 30_000 };
const WORKFLOW = {
  schema_version: 2,
  steps: [{ id: 'implement', instruction: 'Make the change.' }],
  setup: [{ id: 'probe', command: 'node', args: ['--version'], timeout_seconds: 60, network: 'none' }],
  verifier: { command: 'node', args: ['--test', 'test/sum.test.js'], timeout_seconds: 60 },
  protected_paths: [],
};

let base: string;
let h: ForkHarness;
let service: MissionControl;
let host: WebHost;
let browser: Browser;
let web: MissionControlWeb | undefined;
let digest: string;

beforeAll(async () => {
  base = mkdtempSync(path.join(tmpdir(), 'citadel-e2e-wf-tick-'));
  h = new ForkHarness(path.join(base, 'h'));
  mkdirSync(path.join(h.repo, '.citadel'));
  const text = `${JSON.stringify(WORKFLOW, null, 2)}\n`;
  writeFileSync(path.join(h.repo, '.citadel', 'workflow.json'), text);
  digest = sha256Digest(text);
  h.gitIn(h.repo, 'add', '-A');
  h.gitIn(h.repo, 'commit', '-q', '-m', 'a workflow from the clone');
  await h.simulate({ edits: [{ path: 'src/sum.js', content: FIXED_SUM }] });
  web = await openMissionControlWeb(base, h);
  ({ service, host, browser } = web);
}, 180_000);

afterAll(async () => {
  await closeMissionControlWeb(web);
  if (base !== undefined) rmSync(base, { recursive: true, force: true });
}, 60_000);

describe("New Fork asks before the repository's own workflow runs", () => {
  it('lists what it runs, keeps Start disabled until ticked, and the fork started with the tick runs to ready', { timeout: 120_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(host.url);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'New fork' }).click();
    await see(page.getByRole('heading', { level: 1, name: 'New fork' })).toBeVisible(STEP);
    await page.getByLabel('Repository path').fill(h.repo);
    await page.getByLabel('Objective').fill('Fix the sum function');

    await page.getByRole('button', { name: 'Preview digests and argv' }).click();
    const runs = page.getByRole('list', { name: "What the repository's workflow runs" });
    await see(runs).toContainText('Setup probe: node --version · network none', STEP);
    await see(runs).toContainText('Verifier: node --test test/sum.test.js');
    await see(runs).toContainText('Protected paths: none: the agents may change the tests');
    const start = page.getByRole('button', { name: 'Start fork' });
    await see(start).toBeDisabled();
    expect(await seriousA11yViolations(page, "new fork asking about the repository's workflow")).toEqual([]);

    await page.getByRole('checkbox', { name: /Run this repository's workflow/ }).check();
    await see(start).toBeEnabled();
    await start.click();
    await see(page).toHaveURL(/#\/fork\/[^/]+$/, STEP);
    const forkId = decodeURIComponent(new URL(page.url()).hash.replace('#/fork/', ''));
    await service.drained();
    const status = await service.handle('forkStatus', { fork_id: forkId });
    expect(status.ok && status.value.state).toBe('ready');
    const confirmations = path.join(h.root, 'settings', 'workflow-confirmations.json');
    expect(existsSync(confirmations)).toBe(true);
    expect((JSON.parse(readFileSync(confirmations, 'utf8')) as { confirmations: { workflow_digest: string }[] }).confirmations.map((c) => c.workflow_digest)).toEqual([digest]);
    await context.close();
  });
});
