/**
 * Refs outside refs/heads created during a run (issue 12): a tag, a stash, a note or a replace ref
 * the branch makes in its own repository is a containment violation of that branch, recorded by
 * name, and nothing of it reaches the operator's repository. Runtime-only: creating a ref needs the
 * agent to write its git dir, which OS containment stops before Citadel's recheck ever runs. Each
 * case's control is its sibling: the same fork's other branch, which plants nothing, passes.
 */
import { describe, expect, it } from 'vitest';
import { branch, FIXED_SUM, ForkHarness } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const ID = '-c user.name=a -c user.email=a@a';

const PLANTS: readonly (readonly [family: string, script: string, ref: (base: string) => string])[] = [
  ['a tag', 'git tag planted', () => 'refs/tags/planted'],
  ['a stash', `echo x > stashed.txt && git add stashed.txt && git ${ID} stash --quiet`, () => 'refs/stash'],
  ['a note', `git ${ID} notes add -m planted`, () => 'refs/notes/commits'],
  ['a replace ref', `git replace -f HEAD $(git ${ID} commit-tree -m replaced HEAD^{tree})`, (base) => `refs/replace/${base}`],
];

describe('refs created outside refs/heads during a run', () => {
  it.each(PLANTS)('%s is that branch\'s containment violation, by name; the sibling passes', { timeout: 120_000 }, async (_family, script, ref) => {
    const h = new ForkHarness(tempDir('citadel-refs-'));
    const fix = { path: 'src/sum.js', content: FIXED_SUM };
    await h.simulate({ claude: { edits: [fix], commands: [['sh', '-c', script]] }, codex: { edits: [fix] } });
    const { run, doc } = await h.startJson(['--runtimes', 'claude,codex', '--workflow', h.workflowFile, '--containment', 'runtime-only']);
    expect(run.code, run.stderr).toBe(0);
    expect(branch(doc, 'branch-claude')).toMatchObject({ state: 'failed', failure_code: 'WORKTREE_CONTAINMENT_VIOLATION' });
    expect(branch(doc, 'branch-codex')).toMatchObject({ state: 'passed', failure_code: null });
    const base = h.gitIn(h.repo, 'rev-parse', 'HEAD');
    const violations = h.readJson<{ violations: { kind: string; subject: string }[] }>(h.attemptFile(doc.fork_id, 'branch-claude', 'containment.json')).violations;
    expect(violations).toEqual([expect.objectContaining({ kind: 'ref_created', subject: ref(base) })]);
    // Only the two result branches reached the operator's repository.
    expect(h.gitIn(h.repo, 'for-each-ref', '--format=%(refname)')).toBe(
      [`refs/heads/citadel/${doc.fork_id}/branch-claude`, `refs/heads/citadel/${doc.fork_id}/branch-codex`, 'refs/heads/main'].join('\n'),
    );
  });
});
