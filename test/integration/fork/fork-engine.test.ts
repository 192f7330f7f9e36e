/**
 * `citadel fork start/status/stop/clean` end to end: the real CLI as a child process, a real git
 * repository, the real supervisor, and simulated `claude`/`codex` executables first on PATH that
 * print the recorded output shapes and really edit files.
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { branch, FIXED_SUM, ForkHarness, parseDoc, WRONG_SUM } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const harness = (): ForkHarness => new ForkHarness(tempDir('citadel-fork-'));
const fixAndWrong = { claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] } };

describe('fork start: verified branches', () => {
  it('runs a schema 1 fork: each runtime in its own worktree, Citadel commits, the verifier judges', async () => {
    const h = harness();
    await h.simulate(fixAndWrong);
    const { run, doc } = await h.startJson(['--runtimes', 'claude,codex', '--workflow', h.workflowFile]);
    expect(run.code, run.stderr).toBe(0);
    expect(doc).toMatchObject({ schema_version: 1, state: 'ready', executor_set_digest: null });
    expect(branch(doc, 'branch-claude')).toMatchObject({ state: 'passed', failure_code: null });
    expect(branch(doc, 'branch-codex')).toMatchObject({ state: 'failed', failure_code: 'VERIFIER_FAILED' });

    // The parent repository is untouched; each worktree holds its own branch's change, committed by Citadel.
    expect(h.gitIn(h.repo, 'status', '--porcelain')).toBe('');
    expect(readFileSync(path.join(h.repo, 'src', 'sum.js'), 'utf8')).toContain('a - b');
    const claudeTree = h.worktree(doc.fork_id, 'branch-claude');
    expect(readFileSync(path.join(claudeTree, 'src', 'sum.js'), 'utf8')).toBe(FIXED_SUM);
    expect(h.gitIn(claudeTree, 'log', '-1', '--format=%an <%ae>')).toBe('Citadel <citadel@localhost>');
    expect(h.gitIn(h.repo, 'for-each-ref', '--format=%(refname:short)', `refs/heads/citadel/${doc.fork_id}/`).split('\n')).toEqual([
      `citadel/${doc.fork_id}/branch-claude`,
      `citadel/${doc.fork_id}/branch-codex`,
    ]);

    const receipt = h.readJson<{ receipt: Record<string, unknown>; algorithm: string }>(h.attemptFile(doc.fork_id, 'branch-claude', 'execution-receipt.json'));
    expect(receipt.algorithm).toBe('ed25519');
    expect(receipt.receipt).toMatchObject({
      kind: 'execution_receipt',
      status: 'passed',
      diff: { files_changed: 1, insertions: 1, deletions: 1 },
      telemetry: { observed_model: 'claude-sonnet-4-5', observed_model_source: 'claude_result_model_usage' },
      verifier: { status: 'passed', steps: [{ id: 'result_symlinks', status: 'passed' }, { id: 'protected_paths', status: 'passed' }, { id: 'git_diff_check', status: 'passed' }, { id: 'workflow_verifier', status: 'passed', exit_code: 0 }] },
    });
    expect(receipt.receipt.env_names).toEqual(expect.arrayContaining(['HOME', 'PATH']));
    expect(receipt.receipt.env_names).not.toContain('CITADEL_HOME');
    expect(existsSync(h.attemptFile(doc.fork_id, 'branch-claude', 'fork-receipt.json'))).toBe(false);
  });

  it('runs a schema 2 fork from an executor file, with wrappers and branch-<profile_id> ids', async () => {
    const h = harness();
    await h.simulate(fixAndWrong);
    const executors = path.join(h.base, 'executors.json');
    writeFileSync(
      executors,
      JSON.stringify({
        schema_version: 1,
        executors: [
          { profile_id: 'codex-mini', runtime: 'codex', model: 'gpt-5.1-codex-mini', local_provider: null, adapter_options: {} },
          { profile_id: 'claude-sonnet', runtime: 'claude', model: 'claude-sonnet-4-5', local_provider: null, adapter_options: { effort: 'high' } },
        ],
      }),
    );
    const { run, doc } = await h.startJson(['--executors', executors, '--workflow', h.workflowFile]);
    expect(run.code, run.stderr).toBe(0);
    expect(doc.schema_version).toBe(2);
    expect(doc.executor_set_digest).toMatch(/^sha256:/);
    expect(doc.branches.map((b) => b.branch_id)).toEqual(['branch-claude-sonnet', 'branch-codex-mini']);
    const wrapper = h.readJson<{ receipt: Record<string, unknown> }>(h.attemptFile(doc.fork_id, 'branch-codex-mini', 'fork-receipt.json'));
    expect(Object.keys(wrapper.receipt).sort()).toEqual(
      ['branch_id', 'contract_digest', 'execution_receipt_digest', 'executor_profile_digest', 'fork_id', 'issued_at', 'issuer_id', 'kind', 'observation_digest', 'schema_version'].sort(),
    );
    const receipt = h.readJson<{ receipt: { telemetry: Record<string, unknown> } }>(h.attemptFile(doc.fork_id, 'branch-codex-mini', 'execution-receipt.json'));
    expect(receipt.receipt.telemetry).toMatchObject({ observed_model: 'gpt-5.1-codex-mini', observed_model_source: 'codex_rollout_turn_context', cost_usd: null });
    const contract = h.readJson(path.join(h.forkDir(doc.fork_id), 'contract.json'));
    expect(Object.keys(contract)).toEqual(expect.arrayContaining(['executor_set_digest', 'signer_public_key_digest', 'issuer_id']));
  });
});

describe('fork start: typed failures', () => {
  const failing = async (scenario: Parameters<ForkHarness['simulate']>[0], extraArgs: string[] = [], env: Record<string, string> = {}) => {
    const h = harness();
    await h.simulate(scenario);
    const { run, doc } = await h.startJson(['--runtimes', 'claude,codex', '--workflow', h.workflowFile, ...extraArgs], env);
    expect(run.code, run.stderr).toBe(0);
    return { h, doc };
  };

  it('auth failure and unparsable output become typed failure codes; the verifier does not run', async () => {
    const { h, doc } = await failing({ claude: { outcome: 'auth_error' }, codex: { outcome: 'unparsable' } });
    expect(branch(doc, 'branch-claude')).toMatchObject({ state: 'failed', failure_code: 'RUNTIME_AUTH_FAILED' });
    expect(branch(doc, 'branch-codex')).toMatchObject({ state: 'failed', failure_code: 'RUNTIME_OUTPUT_UNPARSABLE' });
    expect(doc.state).toBe('failed');
    const receipt = h.readJson<{ receipt: { verifier: { status: string }; telemetry: Record<string, unknown> } }>(h.attemptFile(doc.fork_id, 'branch-claude', 'execution-receipt.json'));
    expect(receipt.receipt.verifier.status).toBe('not_run');
    expect(receipt.receipt.telemetry).toMatchObject({ cost_usd: null, observed_model: null });
  });

  it('a run past its time budget is stopped and fails with BUDGET_EXCEEDED', async () => {
    const { doc } = await failing({ claude: { outcome: 'hang' }, codex: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] } }, ['--budget-seconds', '2']);
    expect(branch(doc, 'branch-claude')).toMatchObject({ state: 'failed', failure_code: 'BUDGET_EXCEEDED' });
    expect(branch(doc, 'branch-codex')).toMatchObject({ state: 'passed' });
  });

  it('a missing runtime binary is RUNTIME_NOT_FOUND, with a receipt', async () => {
    const h = harness();
    await h.simulate(fixAndWrong);
    // Only codex is installed; PATH holds no claude anywhere.
    const onlyCodex = path.join(h.base, 'only-codex');
    mkdirSync(onlyCodex);
    // The install is self-contained (issue 11: a contained runtime sees only its own directory): the wrapper imports the bundle beside it.
    for (const file of ['codex', 'citadel-simulation.json', 'simulated-runtime.mjs']) copyFileSync(path.join(h.bin, file), path.join(onlyCodex, file));
    chmodSync(path.join(onlyCodex, 'codex'), 0o755);
    const { run, doc } = await h.startJson(['--runtimes', 'claude,codex'], { PATH: [onlyCodex, path.dirname(process.execPath), '/usr/bin', '/bin'].join(':') });
    expect(run.code, run.stderr).toBe(0);
    expect(branch(doc, 'branch-claude')).toMatchObject({ state: 'failed', failure_code: 'RUNTIME_NOT_FOUND' });
    expect(branch(doc, 'branch-codex')).toMatchObject({ state: 'passed' });
    expect(existsSync(h.attemptFile(doc.fork_id, 'branch-claude', 'execution-receipt.json'))).toBe(true);
  });

  for (const outcome of ['git_commit', 'git_checkout', 'git_worktree_add'] as const) {
    // Contained (issue 11), the git metadata is read-only inside the sandbox: the command itself fails,
    // so the runtime exits nonzero, nothing in the branch's repository changed, and there is no violation.
    it(`contained: a runtime that runs ${outcome.replace('_', ' ').replace('_', ' ')} cannot write the git metadata; it fails, nothing changed, no verifier`, async () => {
      const { h, doc } = await failing({ claude: { outcome, edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] } });
      expect(branch(doc, 'branch-claude')).toMatchObject({ state: 'failed', failure_code: 'RUNTIME_EXITED_NONZERO' });
      expect(branch(doc, 'branch-codex')).toMatchObject({ state: 'passed' });
      const receipt = h.readJson<{ receipt: { verifier: { status: string }; containment: { mode: string } } }>(h.attemptFile(doc.fork_id, 'branch-claude', 'execution-receipt.json'));
      expect(receipt.receipt.verifier.status).toBe('not_run');
      expect(receipt.receipt.containment.mode).toBe('contained');
      expect(h.readJson<{ violations: unknown[] }>(h.attemptFile(doc.fork_id, 'branch-claude', 'containment.json')).violations).toEqual([]);
      const worktree = h.worktree(doc.fork_id, 'branch-claude');
      expect(h.gitIn(worktree, 'for-each-ref', '--format=%(refname)')).not.toMatch(/simulated-/);
      expect(h.gitIn(worktree, 'log', '--all', '--format=%s')).not.toMatch(/simulated agent commit/);
      expect(readdirSync(path.dirname(worktree)).filter((name) => name.includes('simulated-worktree'))).toEqual([]);
    });

    it(`runtime-only: a runtime that runs ${outcome.replace('_', ' ').replace('_', ' ')} fails closed with WORKTREE_CONTAINMENT_VIOLATION and no verifier`, async () => {
      const { h, doc } = await failing(
        { claude: { outcome, edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] } },
        ['--containment', 'runtime-only'],
      );
      expect(branch(doc, 'branch-claude')).toMatchObject({ state: 'failed', failure_code: 'WORKTREE_CONTAINMENT_VIOLATION' });
      const receipt = h.readJson<{ receipt: { verifier: { status: string }; result_commit: string | null } }>(h.attemptFile(doc.fork_id, 'branch-claude', 'execution-receipt.json'));
      expect(receipt.receipt.verifier.status).toBe('not_run');
      expect(receipt.receipt.result_commit).toBeNull();
      const violations = h.readJson<{ violations: { kind: string }[] }>(h.attemptFile(doc.fork_id, 'branch-claude', 'containment.json')).violations;
      expect(violations.length).toBeGreaterThan(0);
    });
  }

  it('a diff touching a protected path fails with POLICY_PROTECTED_PATH and the tampered verifier never runs', async () => {
    const { h, doc } = await failing({
      claude: { edits: [{ path: 'test/sum.test.js', content: "import { test } from 'node:test';\ntest('always', () => {});\n" }] },
      codex: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] },
    });
    expect(branch(doc, 'branch-claude')).toMatchObject({ state: 'failed', failure_code: 'POLICY_PROTECTED_PATH' });
    const receipt = h.readJson<{ receipt: { verifier: { steps: { id: string; status: string }[] } } }>(h.attemptFile(doc.fork_id, 'branch-claude', 'execution-receipt.json'));
    expect(receipt.receipt.verifier.steps.map((s) => `${s.id}:${s.status}`)).toEqual(['result_symlinks:passed', 'protected_paths:failed', 'git_diff_check:not_run', 'workflow_verifier:not_run']);
  });
});

describe('fork stop, status and clean', () => {
  it('STOP ends a detached run: process gone and outcome recorded as separate facts', async () => {
    const h = harness();
    await h.simulate({ claude: { outcome: 'hang' }, codex: { outcome: 'hang' } });
    const { run, doc } = await h.startJson(['--runtimes', 'claude,codex', '--detach']);
    expect(run.code, run.stderr).toBe(0);
    expect(doc.state).toBe('running');
    const stop = await h.cli(['fork', 'stop', doc.fork_id, 'branch-claude', '--json']);
    expect(stop.code, stop.stderr).toBe(0);
    const stopped = JSON.parse(stop.stdout) as { stopped: { branch_id: string; process_gone: boolean }[]; status: typeof doc };
    expect(stopped.stopped).toEqual([expect.objectContaining({ branch_id: 'branch-claude', process_gone: true })]);
    expect(branch(stopped.status, 'branch-claude')).toMatchObject({ state: 'failed', failure_code: 'STOPPED_BY_OPERATOR' });
    expect(branch(stopped.status, 'branch-codex').state).toBe('running');
    const runRecord = h.readJson<{ phase: string; stopped: boolean }>(h.attemptFile(doc.fork_id, 'branch-claude', 'run.json'));
    expect(runRecord).toMatchObject({ phase: 'exited', stopped: true });

    const all = await h.cli(['fork', 'stop', doc.fork_id, '--json']);
    expect(branch((JSON.parse(all.stdout) as { status: typeof doc }).status, 'branch-codex')).toMatchObject({ state: 'failed', failure_code: 'STOPPED_BY_OPERATOR' });
    const status = parseDoc(await h.cli(['fork', 'status', doc.fork_id, '--json']));
    expect(status.state).toBe('failed');
  });

  it('rejects --runtimes with --executors before anything is created', async () => {
    const h = harness();
    const run = await h.cli(['fork', 'start', 'x', '--repo', h.repo, '--runtimes', 'claude,codex', '--executors', 'e.json', '--json']);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'EXECUTOR_SELECTION_CONFLICT' } });
    expect(existsSync(h.root) ? readdirSync(h.root) : []).toEqual([]);
    expect(h.gitIn(h.repo, 'worktree', 'list').split('\n')).toHaveLength(1);
  });

  it('keeps a finished schema 1 record byte-identical through status, resume and clean; clean keeps evidence', async () => {
    const h = harness();
    await h.simulate(fixAndWrong);
    const { doc } = await h.startJson(['--runtimes', 'claude,codex']);
    const dir = h.forkDir(doc.fork_id);
    const snapshot = (): Record<string, string> =>
      Object.fromEntries(['fork.json', 'contract.json', 'request.json', 'signer.json', 'objective.txt'].map((f) => [f, readFileSync(path.join(dir, f), 'base64')]));
    const before = snapshot();
    const receiptBefore = readFileSync(h.attemptFile(doc.fork_id, 'branch-claude', 'execution-receipt.json'), 'utf8');
    expect((await h.cli(['fork', 'status', doc.fork_id, '--json'])).code).toBe(0);
    expect((await h.cli(['fork', 'status', '--json'])).code).toBe(0);
    expect((await h.cli(['fork', 'resume', doc.fork_id, '--json'])).code).toBe(0);
    const clean = await h.cli(['fork', 'clean', doc.fork_id, '--json']);
    expect(clean.code, clean.stderr).toBe(0);
    expect(snapshot()).toEqual(before);
    expect(readFileSync(h.attemptFile(doc.fork_id, 'branch-claude', 'execution-receipt.json'), 'utf8')).toBe(receiptBefore);
    expect(existsSync(h.worktree(doc.fork_id, 'branch-claude'))).toBe(false);
    expect(h.gitIn(h.repo, 'branch', '--list', 'citadel/*')).toBe('');
  });

  it('refuses to clean a fork whose branches are still pending, so resume never launches into a removed worktree', async () => {
    const h = harness();
    await h.simulate(fixAndWrong);
    // Crash once both worktrees exist, before anything is launched.
    const crashed = await h.cli(['fork', 'start', 'Fix the sum function', '--repo', h.repo, '--runtimes', 'claude,codex', '--json'], {
      CITADEL_CRASH_AT: 'runtime.launch:after-intent',
      CITADEL_CRASH_AT_HIT: '1',
    });
    expect(crashed.code).toBe(null);
    const forkId = readdirSync(path.join(h.root, 'forks'))[0]!;
    const refused = await h.cli(['fork', 'clean', forkId, '--json']);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({ error: { code: 'FORK_STATE_CONFLICT', details: { pending: ['branch-claude', 'branch-codex'] } } });
    expect(existsSync(h.worktree(forkId, 'branch-codex'))).toBe(true);
    const resumed = parseDoc(await h.cli(['fork', 'resume', forkId, '--json']));
    // The launch in doubt stays blocked for the operator; the other branch runs from its worktree.
    expect(branch(resumed, 'branch-claude')).toMatchObject({ state: 'blocked', blocked_reason: 'launch_in_doubt' });
    expect(branch(resumed, 'branch-codex')).toMatchObject({ state: 'passed' });
  });
});
