import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect as see } from '@playwright/test';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebHost } from '../../../main/web/web-host';
import { closeMissionControlWeb, openMissionControlWeb, type MissionControlWeb } from '../../support/mission-control-web';
import { seriousA11yViolations } from '../../support/axe';
import { FIXED_SUM, ForkHarness, WORKFLOW, WRONG_SUM } from '../../support/fork-harness';

/**
 * Issue 29, output where the decision is made, in real Chromium over the loopback web host: a fork
 * whose verifier fails on one branch, started from a terminal, then opened on its Fork page. The
 * failed verifier step's own output is there, open, without the secret it printed; the failure
 * code leads to it; the whole log comes on request. axe-core checks the page in both themes.
 */

const STEP = { timeout: 30_000 };
const ASSERTION = 'AssertionError: expected 1 to be 3';
// Built from parts, so no file of the repository holds it whole.
const PROVIDER_KEY = ['sk-ant-api03', 'Qw7rT2zX9kLm4NpV8bYc3HdJ6fGs1AeU5oWi0RqZx7CvBn2MlKj4HgFd9SaPo3IuY6TrEw1Qz8XcVb5NmLk7Jh2'].join('-');

/** 250 lines of progress (more than a tail holds), a credential, then the assertion that fails on a wrong sum. */
const CHECK = [
  "import { sum } from '../src/sum.js';",
  'for (let i = 1; i <= 250; i++) console.log(`check ${i}: ok`);',
  `console.log('ANTHROPIC_API_KEY=${PROVIDER_KEY.slice(0, 12)}' + '${PROVIDER_KEY.slice(12)}');`,
  'const got = sum(1, 2);',
  `if (got !== 3) { console.error(\`AssertionError: expected \${got} to be 3\`); process.exitCode = 1; }`,
  '',
].join('\n');

let base: string;
let h: ForkHarness;
let host: WebHost;
let browser: Browser;
let web: MissionControlWeb | undefined;
let forkId: string;

beforeAll(async () => {
  base = mkdtempSync(path.join(tmpdir(), 'citadel-e2e-output-'));
  h = new ForkHarness(path.join(base, 'h'));
  writeFileSync(path.join(h.repo, 'test', 'check.mjs'), CHECK);
  h.gitIn(h.repo, 'add', '-A');
  h.gitIn(h.repo, 'commit', '-q', '-m', 'check');
  writeFileSync(h.workflowFile, JSON.stringify({ ...WORKFLOW, verifier: { command: 'node', args: ['test/check.mjs'], timeout_seconds: 60 } }));
  await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] } });
  const [opened, started] = await Promise.all([
    openMissionControlWeb(base, h),
    h.startJson(['--runtimes', 'claude,codex', '--containment', 'runtime-only', '--workflow', h.workflowFile], { CITADEL_KEYSTORE: 'file' }),
  ]);
  web = opened;
  ({ host, browser } = web);
  expect(started.run.code, started.run.stderr).toBe(0);
  forkId = started.doc.fork_id;
}, 180_000);

afterAll(async () => {
  await closeMissionControlWeb(web);
  if (base !== undefined) rmSync(base, { recursive: true, force: true });
}, 60_000);

describe('a branch output on the Fork page, in real Chromium', () => {
  it("shows the failed verifier step's output, led to from its failure code, redacted, whole on request; axe in both themes", { timeout: 120_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(new URL(`#/fork/${forkId}`, host.url).href);
    await see(page.getByRole('heading', { level: 1, name: `Fork ${forkId}` })).toBeVisible(STEP);
    const codex = page.getByRole('region', { name: 'branch-codex' });

    // The failing step is open, its output's end on the page: the assertion, not the credential.
    const label = "Verifier: the workflow's command of branch-codex";
    const output = codex.getByLabel(label);
    await see(output).toBeVisible(STEP);
    await see(output).toContainText(ASSERTION);
    await see(output).toContainText('[citadel: this line is hidden: it looks like it holds a secret]');
    await see(output).not.toContainText(PROVIDER_KEY);
    await see(output).not.toContainText('check 1: ok');
    const step = codex.locator('details', { has: page.getByLabel(label) });
    await see(step).toHaveAttribute('open', '');
    await see(step.locator('summary')).toContainText('explains the failure');
    await see(step.getByText('Earlier lines are left out. 1 line is hidden: they look like they hold a secret.')).toBeVisible();
    // The passing branch's steps are closed: nothing to explain there.
    const claude = page.getByRole('region', { name: 'branch-claude' });
    await see(claude.locator('details[open]')).toHaveCount(0, STEP);

    // The failure code leads to the step that explains it, the page's address unchanged.
    const url = page.url();
    await step.locator('summary').click();
    await see(step).not.toHaveAttribute('open', '');
    await codex.getByRole('link', { name: /^VERIFIER_FAILED\s?: see the output that explains it$/ }).click();
    await see(step).toHaveAttribute('open', '');
    await see(step.locator('summary')).toBeFocused();
    await see(output).toBeInViewport();
    // Read from its end: the box is scrolled to the bottom, where the assertion is.
    await see.poll(() => output.evaluate((pre) => pre.scrollTop > 0 && pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 1), STEP).toBe(true);
    expect(page.url()).toBe(url);
    expect(await seriousA11yViolations(page, 'fork page with branch output')).toEqual([]);

    // Show all: the whole log, still without the credential.
    await step.getByRole('button', { name: /^Show all/ }).click();
    await see(output).toContainText('check 1: ok', STEP);
    await see(output).toContainText(ASSERTION);
    await see(output).not.toContainText(PROVIDER_KEY);
    await see(step.getByRole('button', { name: /^Show all/ })).toHaveCount(0);
    expect(await seriousA11yViolations(page, 'fork page with a whole log')).toEqual([]);
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
