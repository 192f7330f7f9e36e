/**
 * Issue 13's acceptance with the real CLIs: one whole fork through Citadel's real CLI on the
 * generated npm project (is-number@7.0.0 locked, `npm test` loads it), with a setup step that
 * installs the dependency contained (bubblewrap) in each worktree before the REAL Claude Code
 * 2.1.328 and Codex 0.169.0 start in their sandboxes, and the verifier `npm test` judging both:
 * Claude (scripted) fixes the bug and runs `npm test` itself, Codex (scripted) writes a wrong fix.
 *
 * The suite runs in a loopback-only network namespace, and a `"network": "registries"` step needs
 * an https registry host on port 443 (setup's filtering proxy tunnels nothing else, so no loopback
 * registry can stand in). Setup therefore installs from a warm cache fully offline: `npm ci
 * --offline` with `"network": "none"`, the cache warmed from the registry's own tarball.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { branch, BUGGY_SUM, FIXED_SUM, WRONG_SUM } from '../support/fork-harness';
import { startAnthropicServer } from '../support/model-servers/anthropic-server';
import { startLocalModelServer } from '../support/model-servers/local-model-server';
import { warmOfflineNpmCache, writeNpmProject } from '../support/npm-project';
import { CLAUDE_NPM_FIX, CODEX_WRONG_FIX } from './scripted-agents';
import { CLAUDE_PROFILE, LMSTUDIO_PROFILE, useVendorTempDirs, VendorFork } from './vendor-fork';

const tempDir = useVendorTempDirs();
const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const NPM_CI = { id: 'install', command: 'npm', args: ['ci', '--offline', '--no-audit', '--no-fund'], timeout_seconds: 300, network: 'none' };
const WORKFLOW = {
  schema_version: 2,
  steps: [{ id: 'fix', instruction: 'Fix src/sum.js so that npm test passes.' }],
  setup: [NPM_CI],
  verifier: { command: 'npm', args: ['test'], timeout_seconds: 120 },
  protected_paths: ['test/**', 'package.json', 'package-lock.json'],
};
const CLAUDE = 'branch-claude-sonnet';
const CODEX = 'branch-codex-lmstudio';

interface SetupReceipt {
  steps: { id: string; status: string; exit_code: number | null; timed_out: boolean; duration_ms: number; output_digest: string | null }[];
  kept_paths_digest: string | null;
  containment: { mode: string; backend?: string; policy_digest?: string };
}

describe('real vendor CLIs on the generated npm project with setup', () => {
  it('setup installs the dependency contained in both worktrees; the real Claude fixes the bug, the real Codex does not; npm test judges both and the fix is recommended', { timeout: 420_000 }, async () => {
    const fork = new VendorFork(tempDir());
    writeNpmProject(fork.harness, WORKFLOW);
    const cache = path.join(fork.base, 'npm-cache');
    mkdirSync(cache);
    warmOfflineNpmCache(cache);
    const anthropic = await startAnthropicServer({ scenario: { kind: 'script', turns: CLAUDE_NPM_FIX } });
    const local = await startLocalModelServer({ scenario: { kind: 'script', turns: CODEX_WRONG_FIX } });
    servers.push(anthropic, local);

    const doc = await fork.start([CLAUDE_PROFILE, LMSTUDIO_PROFILE], {
      ANTHROPIC_BASE_URL: anthropic.origin,
      ANTHROPIC_API_KEY: 'sk-ant-test-dummy',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      CODEX_OSS_BASE_URL: `${local.origin}/v1`,
      npm_config_cache: cache,
    });
    const id = doc.fork_id;
    // First the verdicts, so a blocked branch (SETUP_FAILED) shows as such.
    expect(branch(doc, CLAUDE)).toMatchObject({ state: 'passed', failure_code: null, blocked_code: null });
    expect(branch(doc, CODEX)).toMatchObject({ state: 'failed', failure_code: 'VERIFIER_FAILED', blocked_code: null });

    // Setup ran, contained by bubblewrap, and passed in both branches before either runtime started.
    for (const branchId of [CLAUDE, CODEX]) {
      const { receipt } = fork.branchRun(id, branchId);
      const { setup } = fork.harness.readJson<{ receipt: { setup?: SetupReceipt } }>(fork.harness.attemptFile(id, branchId, 'execution-receipt.json')).receipt;
      expect(setup?.containment, branchId).toMatchObject({ mode: 'contained', backend: 'bubblewrap', policy_digest: expect.stringMatching(/^sha256:/) });
      expect(setup?.steps, branchId).toEqual([{ id: 'install', status: 'passed', exit_code: 0, timed_out: false, duration_ms: expect.any(Number), output_digest: expect.stringMatching(/^sha256:/) }]);
      expect(setup?.kept_paths_digest, branchId).toMatch(/^sha256:/);
      expect(readFileSync(fork.harness.attemptFile(id, branchId, 'setup-install.out'), 'utf8'), branchId).toContain('added 1 package');
      // The runtime ran contained too, with its block of ports.
      expect(receipt.containment, branchId).toMatchObject({ mode: 'contained', backend: 'bubblewrap' });
      expect(receipt.env_names, branchId).toContain('CITADEL_PORT');
      // The installed dependency is in the worktree, and not in the result.
      expect(existsSync(path.join(fork.worktree(id, branchId), 'node_modules', 'is-number', 'package.json')), branchId).toBe(true);
      expect(fork.git(fork.repo, 'ls-tree', '-r', '--name-only', `citadel/${id}/${branchId}`), branchId).not.toContain('node_modules');
    }
    // The contract binds the setup step; an offline step reaches no registry.
    const contract = fork.harness.readJson<{ workflow: { setup: unknown } }>(path.join(fork.harness.forkDir(id), 'contract.json'));
    expect(contract.workflow.setup).toEqual([{ ...NPM_CI, registry_hosts: [] }]);

    // Claude's own `npm test` in its sandbox loaded the installed dependency and passed.
    const claudeResults = anthropic.toolResults().filter((r) => r.cwd === fork.worktree(id, CLAUDE));
    expect(claudeResults.map((r) => r.is_error)).toEqual([false, false, false]);
    expect(claudeResults[2]?.content).toMatch(/# pass 1/);

    // The verifier judged both: Claude's fix passes `npm test`, Codex's wrong one fails it.
    const claude = fork.branchRun(id, CLAUDE).receipt;
    expect(fork.git(fork.repo, 'show', `${claude.result_commit}:src/sum.js`) + '\n').toBe(FIXED_SUM);
    expect(Object.fromEntries(claude.verifier.steps.map((s) => [s.id, s.status]))).toMatchObject({ git_diff_check: 'passed', workflow_verifier: 'passed' });

    const codex = fork.branchRun(id, CODEX).receipt;
    expect(fork.git(fork.repo, 'show', `${codex.result_commit}:src/sum.js`) + '\n').toBe(WRONG_SUM);
    expect(Object.fromEntries(codex.verifier.steps.map((s) => [s.id, s.status]))).toMatchObject({ git_diff_check: 'passed', workflow_verifier: 'failed' });
    const codexVerifier = readFileSync(fork.harness.attemptFile(id, CODEX, 'verifier-workflow_verifier.out'), 'utf8');
    expect(codexVerifier).toContain('sum adds');
    // It failed on the sum, not on a missing dependency.
    expect(codexVerifier).not.toContain('ERR_MODULE_NOT_FOUND');

    // The operator's checkout is untouched; compare re-verifies both receipts and recommends the fix.
    expect(fork.git(fork.repo, 'status', '--porcelain')).toBe('');
    expect(readFileSync(path.join(fork.repo, 'src', 'sum.js'), 'utf8')).toBe(BUGGY_SUM);
    const compare = await fork.compare(id);
    expect(compare).toMatchObject({ outcome: 'recommend', recommended_branch_id: CLAUDE });
    for (const entry of compare.branches) expect(entry, entry.branch_id).toMatchObject({ receipt_verified: true });
  });
});
