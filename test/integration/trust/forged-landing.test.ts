/**
 * A landing counts only when its merge commit is in the target (issue 12, item 2): journal lines
 * are stored input, and two forged ones (an intent and a `done` result naming a merge commit) must
 * not turn `fork resume` into `landed`. The control is the same two lines written by a real merge
 * whose process died before recording it: that one is reconciled to landed.
 */
import { existsSync, realpathSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openOrchestratorContext } from '../../../main/host/open-context';
import { landingKey, type LandingIntent } from '../../../main/landing/landing-journal';
import { reconcileLanding } from '../../../main/landing/reconcile-landing';
import { currentSelection } from '../../../main/orchestrator/select-branch';
import { Journal } from '../../../main/store/journal';
import { selectionDigest } from '../../../shared/fork/landing';
import { FIXED_SUM, ForkHarness, parseDoc, WRONG_SUM } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';
import { git, makeRepo } from '../git/git-fixture';
import { fakeFork, type FakeFork } from '../landing/landing-fixture';

const tempDir = useTempDirs();

/** Appends an intent and a `done` result for a landing of the selected branch, as `land` would have. */
async function journalLanding(fork: Pick<FakeFork, 'ctx' | 'forkId' | 'selection' | 'gitBranch'>, parents: [string, string], mergeCommit: string): Promise<void> {
  const intent: LandingIntent = {
    fork_id: fork.forkId,
    branch_id: fork.selection.branch_id,
    git_branch: fork.gitBranch,
    fork_revision: fork.selection.fork_revision,
    selection_digest: selectionDigest(fork.selection),
    target_branch: 'main',
    expected_parents: parents,
  };
  const journal = await Journal.open(fork.ctx.store.file(fork.forkId, 'journal'));
  const key = landingKey(fork.selection, 1);
  await journal.intent('landing.merge', key, intent);
  await journal.result('landing.merge', key, 'done', { merge_commit: mergeCommit, landed_at: new Date().toISOString(), reconciled: false });
}

async function selectedFork(): Promise<FakeFork> {
  const base = realpathSync(tempDir('citadel-forged-landing-'));
  return fakeFork(base, makeRepo(base));
}

describe('a journal that records a landing', () => {
  it('is refused when its merge commit does not exist, or is not the merge of the recorded parents', async () => {
    for (const forged of ['f'.repeat(40), 'selected head'] as const) {
      const fork = await selectedFork();
      const head = git(fork.repo, 'rev-parse', 'HEAD');
      await journalLanding(fork, [head, fork.selectedHead], forged === 'selected head' ? fork.selectedHead : forged);
      await expect(reconcileLanding(fork.ctx, fork.forkId, fork.repo), forged).rejects.toMatchObject({ code: 'FORK_RECORD_INVALID' });
      expect((await fork.record()).state, forged).toBe('selected');
      expect(existsSync(fork.forkFile('landing.json')), forged).toBe(false);
      expect(git(fork.repo, 'rev-parse', 'HEAD')).toBe(head);
    }
  });

  it('the control: the same lines from a real merge whose recording was cut short reconcile to landed', async () => {
    const fork = await selectedFork();
    const head = git(fork.repo, 'rev-parse', 'HEAD');
    git(fork.repo, 'merge', '--quiet', '--no-ff', '--no-edit', fork.gitBranch);
    const merge = git(fork.repo, 'rev-parse', 'HEAD');
    await journalLanding(fork, [head, fork.selectedHead], merge);
    expect(await reconcileLanding(fork.ctx, fork.forkId, fork.repo)).toEqual({ outcome: 'landed', merge_commit: merge });
    expect((await fork.record()).state).toBe('landed');
  });

  it('through the CLI: forged lines in a real fork leave `fork resume` refusing, never landed', async () => {
    const h = new ForkHarness(tempDir('citadel-forged-resume-'));
    await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] } });
    const env = { CITADEL_KEYSTORE: 'file' };
    const { doc } = await h.startJson(['--runtimes', 'claude,codex', '--workflow', h.workflowFile], env);
    expect(doc.state).toBe('ready');
    expect((await h.cli(['fork', 'select', doc.fork_id, 'branch-claude', '--reason', 'passed', '--json'], env)).code).toBe(0);
    const ctx = await openOrchestratorContext({ env: h.env(env) });
    const selection = (await currentSelection(ctx, doc.fork_id))?.record ?? null;
    if (selection === null) throw new Error('no selection');
    const head = h.gitIn(h.repo, 'rev-parse', 'HEAD');
    const branchHead = h.gitIn(h.repo, 'rev-parse', `citadel/${doc.fork_id}/branch-claude`);
    await journalLanding({ ctx, forkId: doc.fork_id, selection, gitBranch: `citadel/${doc.fork_id}/branch-claude` }, [head, branchHead], 'e'.repeat(40));

    const resumed = await h.cli(['fork', 'resume', doc.fork_id, '--json'], env);
    expect(resumed.code).toBe(1);
    expect((JSON.parse(resumed.stdout) as { error: { code: string } }).error.code).toBe('FORK_RECORD_INVALID');
    expect(parseDoc(await h.cli(['fork', 'status', doc.fork_id, '--json'], env)).state).toBe('selected');
    expect(h.gitIn(h.repo, 'rev-parse', 'HEAD')).toBe(head);
  });
});
