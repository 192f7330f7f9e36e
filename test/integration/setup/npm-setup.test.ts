/**
 * Issue 13, setup steps and a verifier that runs, through the real CLI on a generated npm project
 * with one real dependency (is-number@7.0.0, from the registry npm is configured with, into a cache
 * this test warms once outside Citadel): setup `npm ci --prefer-offline` installs it in each
 * branch worktree, contained (bwrap), before the simulated runtime starts, and the verifier
 * `npm test` loads it, and reads an ignored `.env` that `.worktreeinclude` copies into each worktree
 * (receipts carry its path and digest and each branch's port block; the replay none of it). A setup that exits 1 blocks its branch with SETUP_FAILED until the cause is
 * fixed and `fork resolve --retry` runs it again; `"network": "registries"` reaches the registry
 * through the filtering proxy, and `"none"` does not.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { branch, BUGGY_SUM, FIXED_SUM, ForkHarness, parseDoc, WRONG_SUM } from '../../support/fork-harness';
import { NPM_PACKAGE_JSON } from '../../support/npm-project';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

// The project of test/support/npm-project.ts; here its lock is made against the real registry.
const PACKAGE_JSON = NPM_PACKAGE_JSON;
// The tests read an ignored .env the operator chose in .worktreeinclude: without the copy, every branch would fail.
const ENV_FILE = 'SUM_EXPECTED=5\nAPI_TOKEN=env-file-secret-4b1f9e\n';
const SUM_TEST = [
  "import { test } from 'node:test';",
  "import assert from 'node:assert/strict';",
  "import { readFileSync } from 'node:fs';",
  "import isNumber from 'is-number';",
  "import { sum } from '../src/sum.js';",
  "const expected = Number(/SUM_EXPECTED=(\\d+)/.exec(readFileSync(new URL('../.env', import.meta.url), 'utf8'))[1]);",
  "test('sum adds', () => {",
  '  assert.ok(isNumber(sum(2, 3)));',
  '  assert.equal(sum(2, 3), expected);',
  '});',
  '',
].join('\n');
// A changed copy of the dependency: with it and the fix, the tests would pass without detection.
const TAMPERED_IS_NUMBER = 'module.exports = () => true;';

const workflow = (setup: readonly Record<string, unknown>[]) => ({
  schema_version: 2,
  steps: [{ id: 'fix', instruction: 'Fix src/sum.js so that npm test passes.' }],
  setup,
  verifier: { command: 'npm', args: ['test'], timeout_seconds: 120 },
  protected_paths: ['test/**', 'package.json', 'package-lock.json'],
});
const NPM_CI = { id: 'install', command: 'npm', args: ['ci', '--prefer-offline', '--no-audit', '--no-fund'], timeout_seconds: 300, network: 'registries' };

interface Receipt {
  status: string;
  failure_code: string | null;
  verifier: { steps: { id: string; status: string }[] };
  setup?: { steps: { id: string; status: string; exit_code: number | null; output_digest: string | null }[]; kept_paths_digest: string; containment: { mode: string } };
}

/** package.json and package-lock.json of the project, made once with the real registry; the lock is committed by every test's repository. */
let lockfile = '';
let warmCache = '';

let scratch = '';

beforeAll(() => {
  // Kept for the whole file (the temp dirs of useTempDirs go after each test).
  scratch = mkdtempSync(path.join(tmpdir(), 'citadel-npm-lock-'));
  warmCache = path.join(scratch, 'cache');
  writeFileSync(path.join(scratch, 'package.json'), JSON.stringify(PACKAGE_JSON, null, 2));
  execFileSync('npm', ['install', '--package-lock-only', '--no-audit', '--no-fund', '--cache', warmCache], { cwd: scratch, stdio: 'pipe' });
  // The warm cache, as the brief has it: `npm ci --cache DIR` once outside Citadel.
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--cache', warmCache], { cwd: scratch, stdio: 'pipe' });
  lockfile = readFileSync(path.join(scratch, 'package-lock.json'), 'utf8');
}, 120_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The harness's repository turned into the npm project, with the given setup. */
function npmProject(prefix: string, setup: readonly Record<string, unknown>[]): ForkHarness {
  const h = new ForkHarness(tempDir(prefix));
  writeFileSync(path.join(h.repo, 'package.json'), `${JSON.stringify(PACKAGE_JSON, null, 2)}\n`);
  writeFileSync(path.join(h.repo, 'package-lock.json'), lockfile);
  writeFileSync(path.join(h.repo, '.gitignore'), 'node_modules/\n.env\n');
  writeFileSync(path.join(h.repo, '.worktreeinclude'), '.env\n');
  writeFileSync(path.join(h.repo, 'test', 'sum.test.js'), SUM_TEST);
  writeFileSync(path.join(h.repo, 'src', 'sum.js'), BUGGY_SUM);
  h.gitIn(h.repo, 'add', '-A');
  h.gitIn(h.repo, 'commit', '-q', '-m', 'npm project');
  writeFileSync(path.join(h.repo, '.env'), ENV_FILE);
  writeFileSync(h.workflowFile, JSON.stringify(workflow(setup)));
  return h;
}

/** A cache of this test's own, seeded from the warm one (npm writes its logs and index into it). */
function cacheFor(h: ForkHarness, warm: boolean): string {
  const cache = path.join(h.base, 'npm-cache');
  if (warm) cpSync(warmCache, cache, { recursive: true });
  else mkdirSync(cache);
  return cache;
}

const receiptOf = (h: ForkHarness, forkId: string, id: string): Receipt => h.readJson<{ receipt: Receipt }>(h.attemptFile(forkId, id, 'execution-receipt.json')).receipt;
const stepsOf = (receipt: Receipt): Record<string, string> => Object.fromEntries(receipt.verifier.steps.map((s) => [s.id, s.status]));

describe('setup steps on an npm project', () => {
  it('contained: npm ci installs the dependency in every worktree, npm test judges, the fix is recommended, a tampered dependency is refused', { timeout: 240_000 }, async () => {
    const h = npmProject('citadel-setup-npm-', [NPM_CI]);
    const npmEnv = { npm_config_cache: cacheFor(h, true) };
    // A third branch fixes the sum too, but changes the installed dependency and adds a file beside it.
    const executors = path.join(h.base, 'executors.json');
    const profile = (id: string, runtime: string) => ({ profile_id: id, runtime, model: null, local_provider: null, adapter_options: {} });
    writeFileSync(executors, JSON.stringify({ schema_version: 1, executors: [profile('fix', 'claude'), profile('wrong', 'codex'), profile('tamper', 'claude')] }));
    const tamperCommand = `case "$(basename "$PWD")" in branch-tamper) echo '${TAMPERED_IS_NUMBER}' > node_modules/is-number/index.js && echo planted > node_modules/planted.js ;; esac`;
    await h.simulate({
      claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }], commands: [['sh', '-c', tamperCommand]] },
      codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] },
    });

    const { run, doc } = await h.startJson(['--executors', executors, '--workflow', h.workflowFile, '--include-confirmed'], npmEnv);
    expect(run.code, run.stderr).toBe(0);
    const forkId = doc.fork_id;
    const ids = ['branch-fix', 'branch-wrong', 'branch-tamper'];
    for (const id of ids) {
      const setup = receiptOf(h, forkId, id).setup;
      expect(setup?.containment.mode, id).toBe('contained');
      expect(setup?.steps, id).toEqual([{ id: 'install', status: 'passed', exit_code: 0, timed_out: false, duration_ms: expect.any(Number), output_digest: expect.stringMatching(/^sha256:/) }]);
      expect(setup?.kept_paths_digest, id).toMatch(/^sha256:/);
    }
    // The contract binds the setup and the one registry host it may reach.
    const contract = h.readJson<{ workflow: { setup: unknown } }>(path.join(h.forkDir(forkId), 'contract.json'));
    expect(contract.workflow.setup).toEqual([{ ...NPM_CI, registry_hosts: ['registry.npmjs.org'] }]);

    expect(branch(doc, 'branch-fix')).toMatchObject({ state: 'passed', failure_code: null });
    expect(stepsOf(receiptOf(h, forkId, 'branch-fix'))).toMatchObject({ git_diff_check: 'passed', workflow_verifier: 'passed' });
    // The dependency setup installed is still there for the verifier, and it is not in the result.
    expect(existsSync(path.join(h.worktree(forkId, 'branch-fix'), 'node_modules', 'is-number', 'index.js'))).toBe(true);
    expect(h.gitIn(h.repo, 'ls-tree', '-r', '--name-only', `citadel/${forkId}/branch-fix`)).not.toContain('node_modules');

    expect(branch(doc, 'branch-wrong')).toMatchObject({ state: 'failed', failure_code: 'VERIFIER_FAILED' });
    expect(readFileSync(h.attemptFile(forkId, 'branch-wrong', 'verifier-workflow_verifier.out'), 'utf8')).toContain('sum adds');

    expect(branch(doc, 'branch-tamper')).toMatchObject({ state: 'failed', failure_code: 'VERIFICATION_TREE_MISMATCH' });
    const problems = h.readJson<{ kind: string; entries?: string[] }[]>(h.attemptFile(forkId, 'branch-tamper', 'verifier-verification_tree.out'));
    expect(problems).toEqual([{ kind: 'kept_paths', entries: ['node_modules/is-number/index.js'] }]);
    // The added file was removed from the kept set, not kept.
    expect(existsSync(path.join(h.worktree(forkId, 'branch-tamper'), 'node_modules', 'planted.js'))).toBe(false);

    const compare = await h.cli(['fork', 'compare', forkId, '--json']);
    expect(compare.code, compare.stderr).toBe(0);
    expect(JSON.parse(compare.stdout)).toMatchObject({ outcome: 'recommend', recommended_branch_id: 'branch-fix' });

    // Receipts show the copied .env by path and digest (never its content) and each branch's own port block.
    const envDigest = `sha256:${createHash('sha256').update(ENV_FILE).digest('hex')}`;
    const fix = h.readJson<{ receipt: { worktree_include?: unknown; ports?: { first: number; count: number } | null } }>(h.attemptFile(forkId, 'branch-fix', 'execution-receipt.json')).receipt;
    const wrong = h.readJson<{ receipt: { ports?: { first: number; count: number } | null } }>(h.attemptFile(forkId, 'branch-wrong', 'execution-receipt.json')).receipt;
    expect(fix.worktree_include).toEqual([{ path: '.env', digest: envDigest }]);
    expect(fix.ports?.count).toBe(10);
    expect(wrong.ports?.first).not.toBe(fix.ports?.first);
    for (const id of ids) expect(readFileSync(h.attemptFile(forkId, id, 'execution-receipt.json'), 'utf8'), id).not.toContain('env-file-secret');
    // The replay carries none of .env: not its content, not its name or digest.
    const replay = await h.cli(['fork', 'replay', forkId]);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).not.toContain('env-file-secret');
    expect(replay.stdout).not.toContain(envDigest);
  });

  it('runtime-only: a crash mid-setup resumes; a setup that exits 1 blocks its branch with SETUP_FAILED, not comparable; resolve --retry runs it again once the cause is fixed', { timeout: 240_000 }, async () => {
    // Offline from an empty cache: npm ci cannot get is-number and exits 1.
    const h = npmProject('citadel-setup-failed-', [{ ...NPM_CI, args: ['ci', '--offline', '--no-audit', '--no-fund'], network: 'none' }]);
    const cache = cacheFor(h, false);
    const npmEnv = { npm_config_cache: cache };
    await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] } });
    const start = ['fork', 'start', 'Fix the sum function', '--repo', h.repo, '--runtimes', 'claude,codex', '--workflow', h.workflowFile, '--containment', 'runtime-only', '--include-confirmed', '--json'];
    // Killed once a setup's steps have run, before its journal result: the setup is in doubt.
    const crashed = await h.cli(start, { ...npmEnv, CITADEL_CRASH_AT: 'setup.run:after-steps' });
    expect(crashed.code, crashed.stderr).toBeNull();
    const [forkId] = readdirSync(path.join(h.root, 'forks'));
    if (forkId === undefined) throw new Error('no fork after the crash');
    const journal = h.readJsonLines(path.join(h.forkDir(forkId), 'journal.jsonl'));
    expect(journal.filter((line) => line['effect'] === 'setup.run' && line['phase'] === 'intent').length).toBeGreaterThan(0);
    const doc = parseDoc(await h.cli(['fork', 'resume', forkId, '--json'], npmEnv));
    for (const id of ['branch-claude', 'branch-codex']) {
      expect(branch(doc, id)).toMatchObject({ state: 'blocked', blocked_reason: 'start_refused', blocked_code: 'SETUP_FAILED', failure_code: null });
      // No runtime was launched: nothing of the agent ran.
      expect(existsSync(h.attemptFile(forkId, id, 'run.json')), id).toBe(false);
      expect(existsSync(h.attemptFile(forkId, id, 'execution-receipt.json')), id).toBe(false);
    }
    const status = await h.cli(['fork', 'status', forkId]);
    expect(status.stdout).toContain('setup step install exited 1; output ends:');
    expect(status.stdout).toMatch(/\| .*ENOTCACHED|\| .*cache mode is 'only-if-cached'/);
    // npm's complete log, which its message places in the step's cache folder (removed after the step), is kept beside the output.
    const logs = h.attemptFile(forkId, 'branch-claude', 'setup-install-npm-logs');
    expect(readFileSync(h.attemptFile(forkId, 'branch-claude', 'setup-install.out'), 'utf8')).toContain(`citadel: npm's logs of this step are kept in ${logs}`);
    expect(readdirSync(logs).some((name) => name.endsWith('-debug-0.log'))).toBe(true);
    const statusJson = JSON.parse((await h.cli(['fork', 'status', forkId, '--json'])).stdout) as { setup_failures: Record<string, { step_id: string; exit_code: number }> };
    expect(statusJson.setup_failures['branch-claude']).toMatchObject({ step_id: 'install', exit_code: 1 });
    const compare = await h.cli(['fork', 'compare', forkId, '--json']);
    expect(JSON.parse(compare.stdout)).not.toMatchObject({ outcome: 'recommend' });

    // The cause fixed (the cache warmed), each branch retried: the same attempt, setup run again.
    rmSync(cache, { recursive: true, force: true });
    cpSync(warmCache, cache, { recursive: true });
    for (const id of ['branch-claude', 'branch-codex']) {
      const resolved = await h.cli(['fork', 'resolve', forkId, id, '--retry', '--json'], npmEnv);
      expect(resolved.code, resolved.stderr).toBe(0);
    }
    const resumed = parseDoc(await h.cli(['fork', 'resume', forkId, '--json'], npmEnv));
    expect(branch(resumed, 'branch-claude')).toMatchObject({ state: 'passed', attempt: 1 });
    expect(branch(resumed, 'branch-codex')).toMatchObject({ state: 'failed', failure_code: 'VERIFIER_FAILED' });
    expect(receiptOf(h, forkId, 'branch-claude').setup).toMatchObject({ steps: [{ id: 'install', status: 'passed', exit_code: 0 }], containment: { mode: 'runtime-only' } });
    const recommended = await h.cli(['fork', 'compare', forkId, '--json']);
    expect(JSON.parse(recommended.stdout)).toMatchObject({ outcome: 'recommend', recommended_branch_id: 'branch-claude' });
  });

  it('"registries" reaches the configured registry through the proxy; "none" reaches nothing', { timeout: 240_000 }, async () => {
    // `npm view` always asks the registry (an empty cache, online): the probe needs the network.
    const view = { id: 'probe', command: 'npm', args: ['view', 'is-number@7.0.0', 'version', '--prefer-online', '--fetch-retries=0'], timeout_seconds: 120 };
    const results: Record<string, { state: string; output: string }> = {};
    for (const network of ['registries', 'none'] as const) {
      // Setup's environment has the branch's CITADEL_PORT too.
      const port = { id: 'port', command: 'node', args: ['-e', 'process.stdout.write(String(process.env.CITADEL_PORT))'], timeout_seconds: 60 };
      const h = npmProject(`citadel-setup-net-${network}-`, [port, { ...view, network }]);
      const npmEnv = { npm_config_cache: cacheFor(h, false) };
      await h.simulate({ edits: [{ path: 'src/sum.js', content: FIXED_SUM }] });
      const { doc } = await h.startJson(['--runtimes', 'claude,codex', '--workflow', h.workflowFile, '--include-confirmed'], npmEnv);
      results[network] = { state: branch(doc, 'branch-claude').state, output: readFileSync(h.attemptFile(doc.fork_id, 'branch-claude', 'setup-probe.out'), 'utf8') };
      expect(readFileSync(h.attemptFile(doc.fork_id, 'branch-claude', 'setup-port.out'), 'utf8')).toMatch(/^[1-9][0-9]{3,4}$/);
    }
    // Setup passed (the verifier then fails: `npm view` installs nothing).
    expect(results['registries']?.state).not.toBe('blocked');
    expect(results['registries']?.output.trim()).toBe('7.0.0');
    expect(results['none']?.state).toBe('blocked');
    expect(results['none']?.output).not.toContain('7.0.0');
  });
});
