/**
 * Instruction files are evidence of what the run left in its worktree (issue 12): read once, before
 * the verifier's clean removes the ignored ones, and kept as a checkpoint, so a collection retried
 * after a crash past the clean records what the run left, not the cleaned tree. Runtime-only, both
 * branches leave the same git-ignored CLAUDE.local.md; claude's collection is killed after the clean
 * and resumed, codex's (delayed, so second) is collected once by the resume: the control.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { branch, ForkHarness, parseDoc } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

const NOTE = 'local instructions the runtime loads\n';
const LEAVE_NOTE = `printf '${NOTE.replace('\n', '\\n')}' > CLAUDE.local.md && sed -i 's/a - b/a + b/' src/sum.js`;

interface Receipt {
  instruction_files: { path: string; kind: string; digest: string | null }[];
}

describe('instruction files across a collection retried after a crash', () => {
  it('runtime-only: the resumed collection records the ignored file the run left, as an uninterrupted one does', { timeout: 150_000 }, async () => {
    const h = new ForkHarness(tempDir('citadel-instruction-retry-'));
    writeFileSync(path.join(h.repo, '.gitignore'), 'CLAUDE.local.md\n');
    h.gitIn(h.repo, 'add', '-A');
    h.gitIn(h.repo, 'commit', '-q', '-m', 'ignore local instructions');
    await h.simulate({ claude: { commands: [['sh', '-c', LEAVE_NOTE]] }, codex: { commands: [['sh', '-c', LEAVE_NOTE]], delay_ms: 3000 } });
    const start = ['fork', 'start', 'Fix the sum function', '--repo', h.repo, '--runtimes', 'claude,codex', '--workflow', h.workflowFile, '--containment', 'runtime-only', '--json'];
    const crashed = await h.cli(start, { CITADEL_CRASH_AT: 'receipt.collect:after-verification-tree' });
    expect(crashed.code, crashed.stderr).toBeNull();
    const [forkId] = readdirSync(path.join(h.root, 'forks'));
    if (forkId === undefined) throw new Error('no fork after the crash');
    // Killed after claude's clean: the ignored file is gone from its worktree, and no receipt exists yet.
    expect(existsSync(path.join(h.worktree(forkId, 'branch-claude'), 'CLAUDE.local.md'))).toBe(false);
    expect(existsSync(h.attemptFile(forkId, 'branch-claude', 'execution-receipt.json'))).toBe(false);

    const resumed = parseDoc(await h.cli(['fork', 'resume', forkId, '--json']));
    expect(branch(resumed, 'branch-claude')).toMatchObject({ state: 'passed', failure_code: null });
    expect(branch(resumed, 'branch-codex')).toMatchObject({ state: 'passed', failure_code: null });
    const note = { path: 'CLAUDE.local.md', kind: 'file', digest: `sha256:${createHash('sha256').update(NOTE).digest('hex')}` };
    for (const id of ['branch-codex', 'branch-claude']) {
      const files = h.readJson<{ receipt: Receipt }>(h.attemptFile(forkId, id, 'execution-receipt.json')).receipt.instruction_files;
      expect([id, files]).toEqual([id, [note]]);
    }
  });
});
