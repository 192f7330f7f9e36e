/**
 * Issue 12, "verified is what lands", through the real CLI: the workflow verifier judges exactly the
 * tree of the result commit (every untracked and ignored file removed first), and a result that adds
 * a symlink pointing out of the worktree fails POLICY_SYMLINK_ESCAPE before any verifier command
 * runs. The target's .gitignore ignores src/override.js, and its check passes when that file
 * exists or the sum is fixed. Contained (the default: bwrap is installed) one fork carries every
 * case, each branch's control its sibling; runtime-only, the ignored file once more, with a crash
 * between the clean and the verifier that `fork resume` must bring to the same verdict.
 */
import { existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { branch, ForkHarness, parseDoc, WORKFLOW } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

const CHECK = [
  "import { existsSync } from 'node:fs';",
  "import { sum } from '../src/sum.js';",
  "if (!existsSync(new URL('../src/override.js', import.meta.url)) && sum(2, 3) !== 5) {",
  "  console.error('sum(2, 3) is not 5');",
  '  process.exit(1);',
  '}',
  '',
].join('\n');

// The agent's own run of the check, with the override in place: its output reaches the runtime's
// stderr log (the simulator logs a command's output only when it fails, hence `exit 1`).
const PLANT_OVERRIDE = `printf 'export {};\\n' > src/override.js && '${process.execPath}' test/check.mjs && echo override-passes-the-check && exit 1`;
const FIX = "sed -i 's/a - b/a + b/' src/sum.js";
// Absolute, above the root, absolute inside the fork root (worktrees/<fork>/<branch> lies in it), a chain.
const ESCAPING_LINKS = 'ln -s /etc/passwd leak && ln -s ../../../x up && ln -s "${PWD%/worktrees/*}/forks" fork-root && ln -s b a && ln -s ../.. b';

interface Receipt {
  status: string;
  failure_code: string | null;
  result_commit: string | null;
  verifier: { status: string; steps: { id: string; status: string }[] };
  containment?: { mode: string };
}

/** The harness's target with a .gitignore'd override its check honours and an operator's link pointing out. */
function harness(prefix: string): ForkHarness {
  const h = new ForkHarness(tempDir(prefix));
  writeFileSync(path.join(h.repo, '.gitignore'), 'src/override.js\n');
  writeFileSync(path.join(h.repo, 'test', 'check.mjs'), CHECK);
  symlinkSync('/etc/hostname', path.join(h.repo, 'operator-link'));
  h.gitIn(h.repo, 'add', '-A');
  h.gitIn(h.repo, 'commit', '-q', '-m', 'check, ignored override, operator link');
  writeFileSync(h.workflowFile, JSON.stringify({ ...WORKFLOW, verifier: { command: 'node', args: ['test/check.mjs'], timeout_seconds: 60 } }));
  return h;
}

const receiptOf = (h: ForkHarness, forkId: string, id: string): Receipt =>
  h.readJson<{ receipt: Receipt }>(h.attemptFile(forkId, id, 'execution-receipt.json')).receipt;

const stepsOf = (receipt: Receipt): Record<string, string> => Object.fromEntries(receipt.verifier.steps.map((s) => [s.id, s.status]));

const linkScan = (h: ForkHarness, forkId: string, id: string): unknown => h.readJson(h.attemptFile(forkId, id, 'verifier-result_symlinks.out'));

/** The ignored override never reached the result, is gone from the worktree, and was there for the agent's own check. */
function expectOverrideJudgedAway(h: ForkHarness, forkId: string, id: string): void {
  expect(readFileSync(h.attemptFile(forkId, id, 'stderr.log'), 'utf8')).toContain('override-passes-the-check');
  const receipt = receiptOf(h, forkId, id);
  expect(receipt).toMatchObject({ status: 'failed', failure_code: 'VERIFIER_FAILED' });
  expect(stepsOf(receipt)).toEqual({ result_symlinks: 'passed', protected_paths: 'passed', git_diff_check: 'passed', workflow_verifier: 'failed' });
  expect(readFileSync(h.attemptFile(forkId, id, 'verifier-workflow_verifier.out'), 'utf8')).toContain('sum(2, 3) is not 5');
  expect(existsSync(path.join(h.worktree(forkId, id), 'src', 'override.js'))).toBe(false);
  expect(h.gitIn(h.repo, 'ls-tree', '-r', '--name-only', `citadel/${forkId}/${id}`).split('\n')).not.toContain('src/override.js');
}

describe('verified is what lands', () => {
  it('contained: an ignored override is removed before the verifier judges; links pointing out fail before any verifier runs', { timeout: 150_000 }, async () => {
    const h = harness('citadel-verified-');
    await h.simulate({
      claude: { commands: [['sh', '-c', `case "$(basename "$PWD")" in branch-claude-override) ${PLANT_OVERRIDE} ;; *) ${FIX} && ln -s src/sum.js alias ;; esac`]] },
      codex: { commands: [['sh', '-c', `${FIX} && ${ESCAPING_LINKS}`]] },
    });
    const executors = path.join(h.base, 'executors.json');
    const profile = (id: string, runtime: string) => ({ profile_id: id, runtime, model: null, local_provider: null, adapter_options: {} });
    writeFileSync(executors, JSON.stringify({ schema_version: 1, executors: [profile('claude-override', 'claude'), profile('claude-fix', 'claude'), profile('codex-links', 'codex')] }));
    const { run, doc } = await h.startJson(['--executors', executors, '--workflow', h.workflowFile]);
    expect(run.code, run.stderr).toBe(0);
    const forkId = doc.fork_id;
    for (const id of ['branch-claude-override', 'branch-claude-fix', 'branch-codex-links']) expect(receiptOf(h, forkId, id).containment?.mode, id).toBe('contained');

    expect(branch(doc, 'branch-claude-override')).toMatchObject({ state: 'failed', failure_code: 'VERIFIER_FAILED' });
    expectOverrideJudgedAway(h, forkId, 'branch-claude-override');

    // Control for both: the real fix passes, with a link inside the tree, beside the operator's link out.
    expect(branch(doc, 'branch-claude-fix')).toMatchObject({ state: 'passed', failure_code: null });
    expect(stepsOf(receiptOf(h, forkId, 'branch-claude-fix'))).toEqual({ result_symlinks: 'passed', protected_paths: 'passed', git_diff_check: 'passed', workflow_verifier: 'passed' });
    expect(linkScan(h, forkId, 'branch-claude-fix')).toEqual({ scanned: ['alias'], escaping: [] });

    expect(branch(doc, 'branch-codex-links')).toMatchObject({ state: 'failed', failure_code: 'POLICY_SYMLINK_ESCAPE' });
    const links = receiptOf(h, forkId, 'branch-codex-links');
    expect(stepsOf(links)).toEqual({ result_symlinks: 'failed', protected_paths: 'not_run', git_diff_check: 'not_run', workflow_verifier: 'not_run' });
    expect(existsSync(h.attemptFile(forkId, 'branch-codex-links', 'verifier-workflow_verifier.out'))).toBe(false);
    expect(linkScan(h, forkId, 'branch-codex-links')).toEqual({
      scanned: ['a', 'b', 'fork-root', 'leak', 'up'],
      escaping: [
        { path: 'a', reason: 'outside' },
        { path: 'b', reason: 'outside' },
        { path: 'fork-root', reason: 'absolute' },
        { path: 'leak', reason: 'absolute' },
        { path: 'up', reason: 'outside' },
      ],
    });
    // The one verified pass stands alone: the link branch is not comparable, the override branch lost.
    const compare = await h.cli(['fork', 'compare', forkId, '--json']);
    expect(compare.code, compare.stderr).toBe(0);
    expect(JSON.parse(compare.stdout)).toMatchObject({ outcome: 'recommend', recommended_branch_id: 'branch-claude-fix' });
  });

  it('runtime-only: a crash between the clean and the verifier resumes to the same verdict', { timeout: 150_000 }, async () => {
    const h = harness('citadel-verified-crash-');
    // codex waits, so the override branch is the first to reach the crash point.
    await h.simulate({ claude: { commands: [['sh', '-c', PLANT_OVERRIDE]] }, codex: { commands: [['sh', '-c', FIX]], delay_ms: 3000 } });
    const start = ['fork', 'start', 'Fix the sum function', '--repo', h.repo, '--runtimes', 'claude,codex', '--workflow', h.workflowFile, '--containment', 'runtime-only', '--json'];
    const crashed = await h.cli(start, { CITADEL_CRASH_AT: 'receipt.collect:after-verification-tree' });
    // SIGKILLed at the crash point: no exit code.
    expect(crashed.code, crashed.stderr).toBeNull();
    const [forkId] = readdirSync(path.join(h.root, 'forks'));
    if (forkId === undefined) throw new Error('no fork after the crash');
    // Killed after the clean: the override is gone, no receipt was written.
    expect(existsSync(path.join(h.worktree(forkId, 'branch-claude'), 'src', 'override.js'))).toBe(false);
    expect(existsSync(h.attemptFile(forkId, 'branch-claude', 'execution-receipt.json'))).toBe(false);

    const resumed = parseDoc(await h.cli(['fork', 'resume', forkId, '--json']));
    expect(branch(resumed, 'branch-claude')).toMatchObject({ state: 'failed', failure_code: 'VERIFIER_FAILED' });
    expect(branch(resumed, 'branch-codex')).toMatchObject({ state: 'passed', failure_code: null });
    expect(receiptOf(h, forkId, 'branch-claude').containment?.mode).toBe('runtime-only');
    expectOverrideJudgedAway(h, forkId, 'branch-claude');
  });
});
