import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect as see } from '@playwright/test';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutorProfile } from '../../../shared/executors/profile-schema';
import type { MissionControl } from '../../../main/mission-control/service';
import type { WebHost } from '../../../main/web/web-host';
import { closeMissionControlWeb, openMissionControlWeb, type MissionControlWeb } from '../../support/mission-control-web';
import { seriousA11yViolations } from '../../support/axe';
import { FIXED_SUM, ForkHarness, WRONG_SUM } from '../../support/fork-harness';

/**
 * Issue 29's triage and Compare layout in real Chromium over the loopback web host: a fork of three
 * simulated branches (two Claude profiles and one Codex) where only one passes. The list shows it
 * running with its elapsed time, then waiting for a decision with its outcome; Find finds it by a
 * failure code; the filter outlives a visit to the fork; Compare shows all three columns inside
 * the window at 1024 px and at 2560 px; Clean selected cleans it from the list. axe-core checks the
 * list and Compare in both themes.
 */

const RUN = { timeout: 90_000 };
const STEP = { timeout: 30_000 };

const PROFILES: ExecutorProfile[] = [
  { profile_id: 'claude-a', runtime: 'claude', model: null, local_provider: null, adapter_options: {} },
  { profile_id: 'claude-b', runtime: 'claude', model: null, local_provider: null, adapter_options: {} },
  { profile_id: 'codex-a', runtime: 'codex', model: null, local_provider: null, adapter_options: {} },
];

let base: string;
let h: ForkHarness;
let service: MissionControl;
let host: WebHost;
let browser: Browser;
let web: MissionControlWeb | undefined;

beforeAll(async () => {
  base = mkdtempSync(path.join(tmpdir(), 'citadel-e2e-triage-'));
  h = new ForkHarness(path.join(base, 'h'));
  // Both Claude profiles run the same simulated Claude: the second one's worktree (its folder is
  // named by its branch) is given Codex's wrong sum after the edit, so its verifier fails too.
  // A few seconds each, so the list sees the fork running.
  await h.simulate({
    claude: {
      edits: [{ path: 'src/sum.js', content: FIXED_SUM }],
      commands: [['sh', '-c', 'case "$(pwd)" in */branch-claude-b) printf "%s" "$1" > src/sum.js ;; esac', 'sh', WRONG_SUM]],
      delay_ms: 5_000,
    },
    codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }], delay_ms: 5_000 },
  });
  web = await openMissionControlWeb(base, h);
  ({ service, host, browser } = web);
}, 180_000);

afterAll(async () => {
  await closeMissionControlWeb(web);
  if (base !== undefined) rmSync(base, { recursive: true, force: true });
}, 60_000);

/** Every evidence column's box, the window's width, and whether anything (the page, a cell) overflows sideways. */
async function evidenceLayout(page: Page): Promise<{ viewport: number; pageScrolls: boolean; columns: { branch: string; left: number; right: number }[]; overflowingCells: number }> {
  return page.evaluate(() => {
    const tables = [...document.querySelectorAll<HTMLTableElement>('table.side-by-side:not(.not-deciding)')];
    const columns = tables.flatMap((table) =>
      [...table.querySelectorAll<HTMLElement>('thead th[scope="col"]')].map((th) => {
        const box = th.getBoundingClientRect();
        return { branch: th.querySelector('code')?.textContent ?? '', left: box.left, right: box.right };
      }),
    );
    const cells = tables.flatMap((table) => [...table.querySelectorAll<HTMLElement>('td, th')]);
    return {
      viewport: document.documentElement.clientWidth,
      pageScrolls: document.documentElement.scrollWidth > document.documentElement.clientWidth,
      columns,
      overflowingCells: cells.filter((cell) => cell.scrollWidth > cell.clientWidth + 1).length,
    };
  });
}

describe('triage and Compare in real Chromium', () => {
  it('lists a three-branch fork running, then waiting for a decision with its outcome, compares all three branches at 1024 and 2560 px, and cleans it from the list', { timeout: 240_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    const a11y: string[] = [];

    const started = await service.handle('startFork', {
      objective: 'Fix the sum function three ways',
      repo: h.repo,
      executors: { kind: 'executors', profiles: PROFILES },
      workflow_file: h.workflowFile,
      budget_seconds: 120,
    });
    if (!started.ok) throw new Error(`start refused: ${started.error.code}: ${started.error.message}`);
    const forkId = started.value.fork_id;

    await page.goto(host.url);
    await see(page.getByRole('heading', { level: 1, name: 'Forks' })).toBeVisible(STEP);
    const row = page.locator('table.forks tbody tr', { hasText: forkId });
    const outcome = row.locator('td.outcome');
    // Running: how long, ticking.
    await see(outcome).toHaveText(/^running for (\d+ min )?\d+ s$/, STEP);
    const first = (await outcome.textContent()) ?? '';
    await see(outcome).not.toHaveText(first, STEP);
    a11y.push(...(await seriousA11yViolations(page, 'forks (running)')));

    // Settled: it waits for a decision, and says what the evidence recommends.
    await see(row.getByText('needs your decision')).toBeVisible(RUN);
    await see(outcome).toHaveText('recommend branch-claude-a');
    const chips = row.getByRole('list', { name: '3 branches' });
    await see(chips).toContainText('claude-a passed');
    await see(chips).toContainText('claude-b failed: VERIFIER_FAILED');
    await see(chips).toContainText('codex-a failed: VERIFIER_FAILED');

    // The needs-decision filter and Find by a failure code.
    const show = page.getByLabel('Show');
    await see(show.getByRole('option', { name: 'needs your decision (1)' })).toHaveCount(1);
    await show.selectOption('needs-decision');
    const find = page.getByLabel('Find');
    await find.fill('no such failure');
    await see(page.getByRole('heading', { name: 'No forks that need your decision match “no such failure”' })).toBeVisible();
    await find.fill('verifier_failed');
    await see(row).toBeVisible();
    await see(page.getByRole('status').filter({ hasText: / shown$/ })).toHaveText('1 of 1 fork shown');
    a11y.push(...(await seriousA11yViolations(page, 'forks (needs your decision, found)')));

    // Open the fork and come back: the filter and the search are as they were.
    await row.getByRole('link', { name: 'Fix the sum function three ways' }).click();
    await see(page.getByRole('heading', { level: 1, name: `Fork ${forkId}` })).toBeVisible(STEP);
    await page.goBack();
    await see(page.getByRole('heading', { level: 1, name: 'Forks' })).toBeVisible(STEP);
    await see(page.getByLabel('Show')).toHaveValue('needs-decision');
    await see(page.getByLabel('Find')).toHaveValue('verifier_failed');
    await see(row).toBeVisible();
    await see(page.getByRole('status').filter({ hasText: / shown$/ })).toHaveText('1 of 1 fork shown');

    // Compare: every branch column fully inside the window, nothing scrolling sideways, at both widths.
    await page.setViewportSize({ width: 1024, height: 768 });
    await page.goto(`${host.url}#/fork/${forkId}/compare`);
    await see(page.getByRole('heading', { level: 2, name: /^Outcome: recommend/ })).toContainText('branch-claude-a', RUN);
    await see(page.getByRole('region', { name: 'Diff of branch-codex-a' })).toContainText('Math.abs', STEP);
    for (const width of [1024, 2560]) {
      await page.setViewportSize({ width, height: width === 1024 ? 768 : 1440 });
      const layout = await evidenceLayout(page);
      // The window's width, less a vertical scroll bar if it shows one.
      expect(layout.viewport).toBeGreaterThan(width - 30);
      expect(layout.columns.map((c) => c.branch)).toEqual(['branch-claude-a', 'branch-claude-b', 'branch-codex-a']);
      for (const column of layout.columns) {
        expect(column.left, `${column.branch} at ${width} px`).toBeGreaterThanOrEqual(0);
        expect(column.right, `${column.branch} at ${width} px`).toBeLessThanOrEqual(layout.viewport);
      }
      expect(layout.pageScrolls).toBe(false);
      expect(layout.overflowingCells).toBe(0);
      if (width === 1024) a11y.push(...(await seriousA11yViolations(page, `compare at ${width} px`)));
    }

    // Clean it from the list: pick it, confirm once, and its three worktrees and git branches are gone.
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goBack();
    await see(page.getByRole('heading', { level: 1, name: 'Forks' })).toBeVisible(STEP);
    await page.getByRole('button', { name: 'Pick forks to clean' }).click();
    await row.getByRole('checkbox').check();
    await see(page.getByRole('group', { name: 'Picked forks' })).toContainText('1 fork picked');
    a11y.push(...(await seriousA11yViolations(page, 'forks (picking)')));
    await page.getByRole('button', { name: 'Clean selected…' }).click();
    await page.getByRole('button', { name: 'Clean 1 fork' }).click();
    await see(page.getByRole('list', { name: 'Clean results' })).toContainText(`${forkId}: cleaned: 3 worktrees removed, 3 git branches deleted`, STEP);
    for (const profile of PROFILES) expect(existsSync(h.worktree(forkId, `branch-${profile.profile_id}`))).toBe(false);
    expect(h.gitIn(h.repo, 'branch', '--list', `citadel/${forkId}/*`)).toBe('');

    expect(a11y).toEqual([]);
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
