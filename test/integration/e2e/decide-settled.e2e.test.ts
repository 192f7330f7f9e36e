import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect as see } from '@playwright/test';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MissionControl } from '../../../main/mission-control/service';
import { readStatus } from '../../../main/runtimes/process-control/read-status';
import { isProcessGroupAlive, isSameProcessAlive } from '../../../main/runtimes/os-process/process-liveness';
import type { WebHost } from '../../../main/web/web-host';
import { closeMissionControlWeb, openMissionControlWeb, type MissionControlWeb } from '../../support/mission-control-web';
import { seriousA11yViolations } from '../../support/axe';
import { FIXED_SUM, ForkHarness } from '../../support/fork-harness';

/**
 * Deciding from a settled fork (issue 29, item 1), end to end in real Chromium through the real
 * loopback web host and orchestrator, with simulated runtimes: Codex's branch passes while
 * Claude's runs until it is stopped from the Fork page; Select refuses while Claude runs, then
 * takes Codex's branch with the typed acknowledgement (nothing was compared with it); the Land
 * view lands it, and afterwards (and opened again) shows the landing, never a FAIL.
 */

const RUN = { timeout: 60_000 };
const STEP = { timeout: 20_000 };
const ALONE = "branch-codex's verifier passed; the comparison recommends no branch (fewer than two branches have a verified, comparable result, so none was compared)";

let base: string;
let h: ForkHarness;
let service: MissionControl;
let host: WebHost;
let browser: Browser;
let web: MissionControlWeb | undefined;
let forkId = '';

beforeAll(async () => {
  base = mkdtempSync(path.join(tmpdir(), 'citadel-e2e-decide-'));
  h = new ForkHarness(path.join(base, 'h'));
  // Claude's runtime runs until it is stopped; Codex fixes the sum after a moment and passes.
  await h.simulate({ claude: { outcome: 'hang' }, codex: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }], delay_ms: 1_000 } });
  web = await openMissionControlWeb(base, h);
  ({ service, host, browser } = web);
}, 180_000);

afterAll(async () => {
  // Should the test fail before the STOP, only Claude's own recorded processes are ended.
  const runFile = forkId === '' ? null : h.attemptFile(forkId, 'branch-claude', 'run.json');
  if (runFile !== null && existsSync(runFile)) {
    const run = await readStatus(runFile);
    if (run.phase === 'running') {
      if (isSameProcessAlive(run.supervisor_pid, run.supervisor_start_time)) process.kill(run.supervisor_pid, 'SIGKILL');
      if (isProcessGroupAlive(run.runtime_pgid)) process.kill(-run.runtime_pgid, 'SIGKILL');
    }
  }
  await closeMissionControlWeb(web);
  if (base !== undefined) rmSync(base, { recursive: true, force: true });
}, 60_000);

describe('deciding from a settled fork in real Chromium', () => {
  it('stops the branch that went wrong, selects the one that passed with the acknowledgement, and lands it', { timeout: 150_000 }, async () => {
    const started = await service.handle('startFork', {
      objective: 'Fix the sum function',
      repo: h.repo,
      executors: { kind: 'runtimes', list: 'claude,codex' },
      workflow_file: h.workflowFile,
      budget_seconds: 90,
    });
    if (!started.ok) throw new Error(`startFork refused: ${JSON.stringify(started.error)}`);
    forkId = started.value.fork_id;

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'light' });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    const a11y: string[] = [];
    const audit = async (view: string): Promise<void> => {
      a11y.push(...(await seriousA11yViolations(page, view)));
    };
    const actions = page.getByRole('navigation', { name: 'Fork actions' });

    // 1. Codex's branch passes while Claude's still runs.
    await page.goto(`${host.url}#/fork/${forkId}`);
    await see(page.getByRole('heading', { level: 1, name: `Fork ${forkId}` })).toBeVisible(STEP);
    const claude = page.getByRole('region', { name: 'branch-claude' });
    const codex = page.getByRole('region', { name: 'branch-codex' });
    await see(codex.getByText('passed', { exact: true }).first()).toBeVisible(RUN);
    await see(claude.getByText('running', { exact: true }).first()).toBeVisible();

    // 2. The Fork page offers no Select while Claude runs; the Select view, opened by its address,
    // says before anything is sent that nothing can be selected yet.
    await see(actions.getByRole('link', { name: 'Select' })).toHaveAttribute('aria-disabled', 'true');
    await page.goto(`${host.url}#/fork/${forkId}/select`);
    await see(page.getByTestId('select-not-now')).toHaveText('Nothing can be selected now: branch-claude is still running; select once every branch has settled.', STEP);
    await see(page.getByRole('radio', { name: /branch-codex/ })).toBeDisabled();
    await audit('select while a branch runs');

    // 3. STOP from the Fork page: its confirmation says what stopping does to the fork.
    await page.goBack();
    await page.getByRole('button', { name: 'Stop every running branch' }).click();
    const confirmStop = page.getByRole('group', { name: 'Stop every running branch now?' });
    await see(confirmStop).toContainText('will have no verified result, so they cannot be selected');
    await see(confirmStop).toContainText('the fork can still be decided from a branch whose verifier judged its result');
    await confirmStop.getByRole('button', { name: 'Confirm STOP of every branch' }).click();
    await see(claude.getByText('STOPPED_BY_OPERATOR', { exact: true }).first()).toBeVisible(RUN);

    // 4. Select: Claude's stopped branch says why not; Codex's needs the typed acknowledgement.
    await actions.getByRole('link', { name: 'Select' }).click();
    const codexChoice = page.getByRole('radio', { name: /branch-codex/ });
    await see(codexChoice).toBeEnabled(RUN);
    await see(page.getByTestId('select-not-now')).toHaveCount(0);
    const claudeChoice = page.getByRole('radio', { name: /branch-claude/ });
    await see(claudeChoice).toBeDisabled();
    await see(claudeChoice).toHaveAccessibleDescription('branch-claude cannot be selected: it ended STOPPED_BY_OPERATOR, which leaves no result the verifier judged.');
    await codexChoice.check();
    await see(page.getByTestId('against-evidence')).toContainText(ALONE, STEP);
    await page.getByLabel('Reason').fill('The only branch that fixed the sum.');
    await page.getByLabel('Actor').fill('e2e-operator');
    const record = page.getByRole('button', { name: 'Record selection' });
    await see(record).toBeDisabled();
    await page.getByLabel('Type branch-codex to select it against the evidence').fill('branch-codex');
    await see(record).toBeEnabled();
    await audit('select against the evidence');
    await record.click();
    await see(page.getByRole('heading', { level: 2, name: 'Selected branch-codex' })).toBeVisible(RUN);
    await see(page.getByTestId('against-evidence-warning')).toContainText(ALONE);
    await audit('selected');

    // 5. Land: every check passes, the token is typed, one merge commit lands.
    await page.getByRole('link', { name: 'Continue to landing' }).click();
    const token = page.getByTestId('landing-token');
    await see(token).toHaveText(/^[0-9a-f]{12}$/, RUN);
    await see(page.getByTestId('against-evidence-warning')).toContainText(ALONE);
    await audit('land wizard');
    const before = h.gitIn(h.repo, 'rev-parse', 'HEAD');
    await page.getByLabel('Type the confirmation token to confirm this landing').fill((await token.textContent()) ?? '');
    await page.getByRole('button', { name: 'Land (local merge)' }).click();
    const result = page.getByRole('region', { name: '3. Result' });
    await see(result).toContainText('Landed.', RUN);
    const mergeCommit = (await result.getByTestId('merge-commit').textContent()) ?? '';
    expect(h.gitIn(h.repo, 'rev-parse', 'main')).toBe(mergeCommit);
    expect(h.gitIn(h.repo, 'rev-parse', `${mergeCommit}^1`)).toBe(before);
    expect(h.gitIn(h.repo, 'show', 'main:src/sum.js')).toBe(FIXED_SUM.trim());

    // 6. After landing: the landing, the checks as they stood before it, and no FAIL or refusal; also when opened again.
    const main = page.getByRole('main');
    await see(result).toContainText(`into main`, RUN);
    await see(page.getByTestId('checks-before-landing')).toContainText('Every check passed when the landing was confirmed');
    await see(main).not.toContainText('FAIL');
    await see(main).not.toContainText('Landing is refused');
    await audit('land result');
    await page.reload();
    await see(page.getByTestId('landed')).toContainText(`Landed. Merge commit ${mergeCommit} into main`, RUN);
    await see(page.getByTestId('checks-before-landing')).toContainText('This fork has already landed.');
    await see(main).not.toContainText('FAIL');
    await see(main).not.toContainText('Landing is refused');
    await audit('land, opened after the landing');

    expect(pageErrors).toEqual([]);
    expect(a11y).toEqual([]);
    await context.close();
  });
});
