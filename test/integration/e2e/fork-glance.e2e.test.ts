import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect as see } from '@playwright/test';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MissionControl } from '../../../main/mission-control/service';
import type { WebHost } from '../../../main/web/web-host';
import { closeMissionControlWeb, openMissionControlWeb, type MissionControlWeb } from '../../support/mission-control-web';
import { seriousA11yViolations } from '../../support/axe';
import { FIXED_SUM, ForkHarness, WRONG_SUM } from '../../support/fork-harness';
import { value } from '../../support/service-context';

/**
 * Issue 29, items 3 and 4, in real Chromium over the loopback web host and the real service, with
 * simulated runtimes that run about 12 s: a running fork reads at a glance (its branches right under
 * the header, the changed files named, nothing red that is only not collected yet), its actions that
 * need a settled fork are not offered while a branch runs, and who drives a fork is said before the
 * operator does anything: Mission Control, a terminal's `fork start` (another process holding the
 * fork lock), or nobody (`--detach`), with Resume at the top.
 */

const STEP = { timeout: 30_000 };
const RUN = { timeout: 60_000 };
// The CLI's keys in the file store, as the service's (its context below).
const SAME_KEYS = { CITADEL_KEYSTORE: 'file' };

let base: string;
let h: ForkHarness;
let service: MissionControl;
let host: WebHost;
let browser: Browser;
let web: MissionControlWeb | undefined;

beforeAll(async () => {
  base = mkdtempSync(path.join(tmpdir(), 'citadel-e2e-glance-'));
  h = new ForkHarness(path.join(base, 'h'));
  // Each edit lands halfway through its run (the delay is spread around it): the page sees the
  // worktree change while both branches still run, with about 6 s to spare.
  await h.simulate({
    claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }], delay_ms: 12_000 },
    codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }], delay_ms: 12_000 },
  });
  web = await openMissionControlWeb(base, h, SAME_KEYS);
  ({ service, host, browser } = web);
}, 180_000);

afterAll(async () => {
  await closeMissionControlWeb(web);
  if (base !== undefined) rmSync(base, { recursive: true, force: true });
}, 60_000);

const forkPage = (forkId: string): string => `${host.url}#/fork/${forkId}`;

/** The box of a located element; fails the test when it is not rendered. */
async function box(locator: Locator): Promise<{ x: number; y: number; width: number; height: number }> {
  const found = await locator.boundingBox();
  if (found === null) throw new Error(`${locator.toString()} is not rendered`);
  return found;
}

/** The text of each code element (a digest, a path) that runs past the right edge of the block it is in. */
const overflowingCode = (page: Page): Promise<string[]> =>
  page.evaluate(() =>
    [...document.querySelectorAll('code')]
      .filter((code) => {
        const block = code.parentElement?.closest('p, dd, li, td, div');
        return block !== null && block !== undefined && code.getBoundingClientRect().right > block.getBoundingClientRect().right + 1;
      })
      .map((code) => code.textContent ?? ''),
  );

/** Compare, Select and Land are not links while a branch runs, and say why. */
async function expectSettledActionsWait(page: Page): Promise<void> {
  const actions = page.getByRole('navigation', { name: 'Fork actions' });
  for (const name of ['Compare', 'Select', 'Land']) {
    const action = actions.getByRole('link', { name, exact: true });
    await see(action).toHaveAttribute('aria-disabled', 'true', STEP);
    await see(action).not.toHaveAttribute('href');
  }
  await see(page.getByTestId('fork-actions-wait')).toHaveText('Compare, Select and Land wait until every branch has settled: a branch is still running.');
  await see(page.getByTestId('fork-actions-wait')).toBeVisible();
}

/** The forks the service lists, newest last, once there are `count` of them. */
async function forksListed(count: number): Promise<string[]> {
  let ids: string[] = [];
  await see.poll(async () => (ids = value(await service.handle('listForks', { state: null })).forks.map((f) => f.fork_id)).length, RUN).toBeGreaterThanOrEqual(count);
  return ids;
}

describe('a running fork at a glance, and only the actions that can succeed (issue 29)', () => {
  it('driven by Mission Control: branches first, files named, nothing red while running, Compare/Select/Land wait; then they open up', { timeout: 120_000 }, async () => {
    const started = value(
      await service.handle('startFork', { objective: 'Fix the sum function', repo: h.repo, executors: { kind: 'runtimes', list: 'claude,codex' }, workflow_file: h.workflowFile, budget_seconds: 120 }),
    );
    const forkId = started.fork_id;
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(forkPage(forkId));
    const claude = page.getByRole('region', { name: 'branch-claude' });
    const codex = page.getByRole('region', { name: 'branch-codex' });
    await see(codex.getByTestId('live-elapsed')).toContainText('of 2 min budget', STEP);

    // Who drives it: this Mission Control.
    await see(page.getByTestId('fork-driver')).toHaveText('Mission Control is driving this fork: its progress streams here.', STEP);
    await expectSettledActionsWait(page);

    // The branches come right under the header; the contract's digests, the proof and clean-up below them.
    const branchesTop = (await box(page.getByRole('heading', { level: 2, name: 'Branches' }))).y;
    expect((await box(page.getByRole('navigation', { name: 'Fork actions' }))).y).toBeLessThan(branchesTop);
    const branchBottom = Math.max(...(await Promise.all([claude, codex].map(async (panel) => (await box(panel)).y))));
    expect(branchBottom).toBeGreaterThan(branchesTop);
    for (const below of ['Contract', 'Proof', 'Clean up']) {
      expect((await box(page.getByRole('region', { name: below, exact: true }))).y, below).toBeGreaterThan((await box(claude)).y + (await box(claude)).height - 1);
    }
    // The first branch starts within the first screen.
    expect((await box(claude)).y).toBeLessThan(800);

    // While running: the changed file named, its last activity, and nothing red for what is only not collected yet.
    await see(codex.getByRole('list', { name: 'Changed files' })).toHaveText('src/sum.js', RUN);
    await see(codex.getByTestId('live-diff')).toContainText('1 file · +');
    await see(codex.getByTestId('live-last')).toContainText(/ ago$/);
    await see(codex.getByText('running', { exact: true }).first()).toBeVisible();
    for (const panel of [claude, codex]) {
      await see(panel.getByTestId('receipt-standing')).toContainText('not collected yet');
      await see(panel.getByText('not verified', { exact: true })).toHaveCount(0);
      await see(panel.getByText('not_collected', { exact: true })).toHaveCount(0);
      await see(panel.locator('.tone-bad, .tone-text-bad')).toHaveCount(0);
    }
    await see(codex.getByTestId('live-elapsed')).toBeVisible();
    expect(await seriousA11yViolations(page, 'fork running')).toEqual([]);

    // At 1024 px nothing runs off the page: each STOP sits inside its panel, the digests wrap inside their card.
    await page.setViewportSize({ width: 1024, height: 800 });
    for (const panel of [claude, codex]) {
      const panelBox = await box(panel);
      const stop = await box(panel.getByRole('button', { name: /^Stop branch-/ }));
      expect(stop.x + stop.width).toBeLessThanOrEqual(panelBox.x + panelBox.width);
    }
    const contract = page.getByRole('region', { name: 'Contract', exact: true });
    const contractBox = await box(contract);
    const digest = await box(contract.getByText(started.contract_digest, { exact: true }));
    expect(digest.x + digest.width).toBeLessThanOrEqual(contractBox.x + contractBox.width);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    expect(await overflowingCode(page)).toEqual([]);

    // Settled, live: Compare and Select open up; Land waits for a selection and links to Select.
    await see(page.getByRole('log', { name: 'Live events of the fork' })).toContainText('fork ready', RUN);
    const actions = page.getByRole('navigation', { name: 'Fork actions' });
    await see(actions.getByRole('link', { name: 'Compare', exact: true })).toHaveAttribute('href', `#/fork/${forkId}/compare`, STEP);
    await see(actions.getByRole('link', { name: 'Select', exact: true })).toHaveAttribute('href', `#/fork/${forkId}/select`);
    await see(actions.getByRole('link', { name: 'Land', exact: true })).toHaveAttribute('aria-disabled', 'true');
    await see(page.getByTestId('fork-actions-wait')).toContainText('Land needs a selected branch: no branch is selected yet.');
    await see(page.getByTestId('fork-actions-wait').getByRole('link', { name: 'Select a branch' })).toHaveAttribute('href', `#/fork/${forkId}/select`);
    // A settled branch that failed is red, as a real failure is.
    await see(codex.getByText('VERIFIER_FAILED', { exact: true }).first()).toBeVisible(STEP);
    // Each receipt's containment names its policy digest: it wraps in its column at 1024 px, never into the telemetry beside it.
    await see(claude.getByTestId('containment')).toContainText('policy sha256:', STEP);
    expect(await overflowingCode(page)).toEqual([]);
    expect(await seriousA11yViolations(page, 'fork settled')).toEqual([]);
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('driven by a terminal, or by nobody: said at the top before anything is typed, with Resume for the fork nobody drives', { timeout: 120_000 }, async () => {
    const before = value(await service.handle('listForks', { state: null })).forks.length;
    // A terminal's `fork start` holds the fork lock while it drives; a --detach one leaves the runtimes to run alone.
    const driving = h.cli(['fork', 'start', 'Make sum add, from a terminal', '--repo', h.repo, '--runtimes', 'claude,codex', '--workflow', h.workflowFile, '--json'], SAME_KEYS);
    const [terminalFork] = (await forksListed(before + 1)).slice(before);
    const detached = await h.cli(['fork', 'start', 'Make sum add, detached', '--repo', h.repo, '--runtimes', 'claude,codex', '--workflow', h.workflowFile, '--detach', '--json'], SAME_KEYS);
    expect(detached.code, detached.stderr).toBe(0);
    const detachedFork = (JSON.parse(detached.stdout) as { fork_id: string }).fork_id;

    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
    const page = await context.newPage();
    await page.goto(forkPage(terminalFork ?? ''));
    const driver = page.getByTestId('fork-driver');
    await see(driver).toContainText(/^Being driven by another process since .+ \(a Citadel process, pid \d+\): its progress streams here/, RUN);
    await expectSettledActionsWait(page);
    await see(page.getByRole('button', { name: 'Resume' })).toHaveCount(0);
    expect(await seriousA11yViolations(page, 'fork driven by a terminal')).toEqual([]);

    await page.goto(forkPage(detachedFork));
    await see(page.getByRole('heading', { level: 1, name: `Fork ${detachedFork}` })).toBeVisible(STEP);
    await see(page.getByTestId('fork-driver')).toContainText('Nobody drives this fork', STEP);
    const resume = page.getByRole('button', { name: 'Resume' });
    const codex = page.getByRole('region', { name: 'branch-codex' });
    await see(codex.getByTestId('live-diff')).toContainText('not watched: no Citadel process drives this fork');
    await see(codex.getByTestId('live-diff')).not.toContainText('not looked at yet');
    expect((await box(resume)).y).toBeLessThan((await box(page.getByRole('heading', { level: 2, name: 'Branches' }))).y);
    await expectSettledActionsWait(page);
    expect(await seriousA11yViolations(page, 'fork nobody drives')).toEqual([]);
    await resume.click();
    // Driven here now (or, its runtimes done by then, already collected): no longer nobody's, and nothing to resume.
    await see(resume).toHaveCount(0, RUN);
    await see(page.getByTestId('fork-driver')).not.toContainText('Nobody drives this fork');
    await see(page.getByRole('log', { name: 'Live events of the fork' })).toContainText('fork ready', RUN);

    const run = await driving;
    expect(run.code, run.stderr).toBe(0);
    await context.close();
  });
});
