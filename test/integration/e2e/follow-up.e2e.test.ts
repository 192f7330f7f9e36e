import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect as see } from '@playwright/test';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MissionControl } from '../../../main/mission-control/service';
import type { WebHost } from '../../../main/web/web-host';
import { closeMissionControlWeb, openMissionControlWeb, type MissionControlWeb } from '../../support/mission-control-web';
import { seriousA11yViolations } from '../../support/axe';
import { FIXED_SUM, ForkHarness } from '../../support/fork-harness';

/**
 * Issue 32 item 5 in real Chromium over the loopback web host, with simulated runtimes: a fork
 * settles; on its page a line of a branch's diff is picked and commented on; "Ask for changes"
 * opens New Fork continuing that branch, its objective the comment with its file and line; the
 * follow-up starts from the branch's result, its page shows the chain, and the parent's page and
 * the Forks list show the follow-up. Compare's "Continue from this branch" opens the same form, and
 * a branch nothing can continue from is said in words, with no form.
 */

const RUN = { timeout: 60_000 };
const STEP = { timeout: 20_000 };
const COMMENT = 'handle the empty case';
const ASKED = `src/sum.js:2: ${COMMENT}`;
// CITADEL_SCREENSHOTS=1 keeps this file's screenshots in a temp folder it names, to look at; never in docs/.
const SHOTS = process.env.CITADEL_SCREENSHOTS === '1' ? mkdtempSync(path.join(tmpdir(), 'citadel-follow-up-shots-')) : null;

let base: string;
let h: ForkHarness;
let service: MissionControl;
let host: WebHost;
let browser: Browser;
let web: MissionControlWeb | undefined;

beforeAll(async () => {
  base = mkdtempSync(path.join(tmpdir(), 'citadel-e2e-follow-up-'));
  h = new ForkHarness(path.join(base, 'h'));
  await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] } });
  web = await openMissionControlWeb(base, h);
  ({ service, host, browser } = web);
  if (SHOTS !== null) mkdirSync(SHOTS, { recursive: true });
}, 180_000);

afterAll(async () => {
  await closeMissionControlWeb(web);
  if (base !== undefined) rmSync(base, { recursive: true, force: true });
  if (SHOTS !== null) console.log(`follow-up screenshots: ${SHOTS}`);
}, 60_000);

const shoot = async (page: Page, name: string): Promise<void> => {
  if (SHOTS !== null) await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
};

async function settledFork(): Promise<string> {
  const started = await service.handle('startFork', {
    objective: 'Fix the sum function',
    repo: h.repo,
    executors: { kind: 'runtimes', list: 'claude,codex' },
    workflow_file: h.workflowFile,
    budget_seconds: 90,
  });
  if (!started.ok) throw new Error(`startFork refused: ${JSON.stringify(started.error)}`);
  await service.drained();
  const status = await service.handle('forkStatus', { fork_id: started.value.fork_id });
  if (!status.ok) throw new Error(`forkStatus refused: ${JSON.stringify(status.error)}`);
  expect(status.value.branches.map((b) => b.state)).toEqual(['passed', 'passed']);
  return started.value.fork_id;
}

describe('follow-ups in real Chromium', () => {
  it('asks for changes from a diff line: the follow-up starts with the comment and its location, and both pages and the list show the chain', { timeout: 240_000 }, async () => {
    const parentId = await settledFork();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    const a11y: string[] = [];
    const audit = async (view: string): Promise<void> => {
      a11y.push(...(await seriousA11yViolations(page, view)));
    };

    // 1. The Fork page: pick the changed line of branch-codex's diff and comment on it.
    await page.goto(`${host.url}#/fork/${parentId}`);
    const codex = page.getByRole('region', { name: 'branch-codex' });
    await see(codex.getByText('passed', { exact: true }).first()).toBeVisible(RUN);
    await codex.getByRole('button', { name: 'Comment on lines' }).click();
    const line = codex.getByRole('button', { name: /^src\/sum\.js line 2, added:/ });
    await line.click();
    await see(line).toHaveAttribute('aria-pressed', 'true');
    const comment = codex.getByLabel(/^Comment on src\/sum\.js:2/);
    await comment.fill(COMMENT);
    await codex.getByRole('button', { name: 'Add comment' }).click();
    const asked = codex.getByRole('region', { name: 'Changes to ask for' });
    await see(asked).toContainText(ASKED);
    // A second comment, over two lines picked with a shift-click, then removed again.
    await codex.getByRole('button', { name: /^src\/sum\.js line 1, unchanged:/ }).click();
    await codex.getByRole('button', { name: /^src\/sum\.js line 3, unchanged:/ }).click({ modifiers: ['Shift'] });
    await see(codex.getByLabel(/^Comment on src\/sum\.js:1-3 \(4 lines\)/)).toBeVisible();
    await codex.getByLabel(/^Comment on src\/sum\.js:1-3/).fill('keep the signature');
    await codex.getByRole('button', { name: 'Add comment' }).click();
    await see(asked.getByRole('listitem')).toHaveCount(2);
    await asked.getByRole('button', { name: 'Remove the comment on src/sum.js:1-3' }).click();
    await see(asked.getByRole('listitem')).toHaveCount(1);
    await audit('fork page with a diff comment');
    await shoot(page, 'fork-page-comment');

    // 2. "Ask for changes" opens New Fork continuing branch-codex, pre-filled.
    await asked.getByRole('button', { name: 'Ask for changes' }).click();
    await see(page).toHaveURL(new RegExp(`#/new\\?from=${parentId}/branch-codex$`), STEP);
    const banner = page.getByTestId('follow-up-banner');
    await see(banner).toContainText('Continues Fix the sum function · branch-codex (passed)', STEP);
    const objective = page.getByLabel('Objective');
    await see(objective).toHaveValue(new RegExp(`^${ASKED.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n> \\+  return a \\+ b;$`));
    await see(page.getByLabel('Repository path')).toHaveValue(h.repo);
    await see(page.getByLabel('Repository path')).toHaveAttribute('readonly', '');
    await see(page.getByRole('radio', { name: 'Runtimes (legacy, schema 1)' })).toBeChecked();
    // A reload keeps the parent and the objective.
    await page.reload();
    await see(banner).toContainText('branch-codex (passed)', STEP);
    await see(objective).toHaveValue(new RegExp(`^${ASKED.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));

    // 3. The preview says the follow-up starts from the branch's result, not HEAD, and runs the parent's workflow.
    await page.getByRole('button', { name: 'Preview digests and argv' }).click();
    const resultCommit = h.gitIn(h.repo, 'rev-parse', `refs/heads/citadel/${parentId}/branch-codex`);
    await see(page.getByTestId('preview-base')).toContainText(`Starts from ${resultCommit.slice(0, 12)}, the result of branch-codex (not the repository's HEAD).`, STEP);
    await see(page.getByRole('region', { name: 'Preview' })).toContainText("Workflow: the continued fork's, as its contract froze it");
    await audit('new follow-up fork');
    await shoot(page, 'new-follow-up');

    // 4. Start: the child's page shows the chain back to the parent.
    await page.getByRole('button', { name: 'Start fork' }).click();
    await see(page).toHaveURL(/#\/fork\/[^/?]+$/, STEP);
    const childId = decodeURIComponent(new URL(page.url()).hash.replace('#/fork/', ''));
    expect(childId).not.toBe(parentId);
    const chain = page.getByTestId('fork-chain');
    await see(chain).toContainText('Continues', STEP);
    await see(chain.getByRole('link', { name: 'Fix the sum function' })).toHaveAttribute('href', `#/fork/${parentId}`);
    await see(chain).toContainText(`${parentId} · branch-codex → this fork`);
    await see(page.getByTestId('fork-base')).toContainText(resultCommit.slice(0, 12));
    const child = await service.handle('forkStatus', { fork_id: childId });
    if (!child.ok) throw new Error(JSON.stringify(child.error));
    expect(child.value.title).toBe(ASKED);
    expect(child.value.lineage).toMatchObject({ parent_fork_id: parentId, parent_branch_id: 'branch-codex', parent_result_commit: resultCommit });
    expect(child.value.base_revision).toBe(resultCommit);
    expect(readFileSync(path.join(h.forkDir(childId), 'objective.txt'), 'utf8')).toBe(`${ASKED}\n> +  return a + b;`);
    await audit('follow-up fork page');
    await shoot(page, 'follow-up-fork-page');

    // 5. The parent's page and the Forks list show the follow-up; the list shows the child's parent.
    await chain.getByRole('link', { name: 'Fix the sum function' }).click();
    const parentChain = page.getByTestId('fork-chain');
    await see(parentChain).toContainText('Follow-up', STEP);
    await see(parentChain.getByRole('link', { name: childId })).toHaveAttribute('href', `#/fork/${childId}`);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Forks' }).click();
    const parentRow = page.locator(`tr[data-key="${parentId}"]`);
    const childRow = page.locator(`tr[data-key="${childId}"]`);
    await see(parentRow).toContainText(`1 follow-up: ${childId}`, STEP);
    await see(parentRow.getByRole('link', { name: childId })).toHaveAttribute('href', `#/fork/${childId}`);
    await see(childRow).toContainText(`continues ${parentId} / branch-codex`);
    await see(childRow.getByRole('link', { name: parentId })).toHaveAttribute('href', `#/fork/${parentId}`);
    await audit('forks list with a chain');
    await shoot(page, 'forks-list-chain');

    await service.drained();
    expect(pageErrors).toEqual([]);
    expect(a11y).toEqual([]);
    await context.close();
  });

  it('continues from Compare with an empty objective, and says in words when a branch cannot be continued', { timeout: 120_000 }, async () => {
    const parentId = await settledFork();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${host.url}#/fork/${parentId}/compare`);
    const continueClaude = page.getByRole('button', { name: 'Continue from this branch, branch-claude' });
    await see(continueClaude).toBeVisible(RUN);
    expect(await seriousA11yViolations(page, 'compare with follow-up buttons')).toEqual([]);
    await shoot(page, 'compare-continue');
    await continueClaude.click();
    await see(page).toHaveURL(new RegExp(`#/new\\?from=${parentId}/branch-claude$`), STEP);
    await see(page.getByTestId('follow-up-banner')).toContainText('Continues Fix the sum function · branch-claude (passed)', STEP);
    await see(page.getByLabel('Objective')).toHaveValue('');
    await see(page.getByLabel('Repository path')).toHaveValue(h.repo);
    expect(await seriousA11yViolations(page, 'new follow-up from compare')).toEqual([]);

    // A branch the fork does not have: refused in words, and no form that could not start.
    await page.goto(`${host.url}#/new?from=${parentId}/branch-nowhere`);
    await see(page.getByRole('alert')).toContainText('BRANCH_NOT_FOUND', STEP);
    await see(page.getByRole('heading', { name: 'A follow-up cannot start from branch-nowhere' })).toBeVisible();
    await see(page.getByRole('button', { name: 'Start fork' })).toHaveCount(0);
    await see(page.getByRole('link', { name: `Back to fork ${parentId}` })).toBeVisible();
    expect(await seriousA11yViolations(page, 'refused follow-up')).toEqual([]);
    await context.close();
  });
});
