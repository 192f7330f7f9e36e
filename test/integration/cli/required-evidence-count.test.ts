import { describe, expect, it } from 'vitest';
import { ProofReportSchema } from '../../../shared/publish/replay';
import { FIXED_SUM, ForkHarness } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';

/**
 * Issue 30, item 3, through the real CLI as a child process: a fork whose workflow names a verifier
 * runs four verifier steps per branch (result_symlinks, then the three its contract requires), and
 * the compare table, `fork compare --json` and the proof report say 3 of 3, not 4 of 3.
 */
const tempDir = useTempDirs();

interface Counted {
  branch_id: string;
  required_evidence?: { required: number; present: number };
  required?: number;
  present?: number;
}

describe('the required-evidence count', () => {
  it('is 3 of 3 in the compare table, compare --json and the proof, though four verifier steps ran', async () => {
    const h = new ForkHarness(tempDir('citadel-required-evidence-'));
    await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] } });
    const { run, doc } = await h.startJson(['--runtimes', 'claude,codex', '--workflow', h.workflowFile]);
    expect(run.code, run.stderr).toBe(0);
    const forkId = doc.fork_id;

    // What ran: the replay lists every verifier step of each verified receipt.
    const replay = await h.cli(['fork', 'replay', forkId]);
    expect(replay.code, replay.stderr).toBe(0);
    const published = JSON.parse(replay.stdout) as { branches: { verifier: { steps: { id: string; status: string }[] } }[] };
    for (const b of published.branches) {
      expect(b.verifier.steps.map((s) => [s.id, s.status])).toEqual([
        ['result_symlinks', 'passed'],
        ['protected_paths', 'passed'],
        ['git_diff_check', 'passed'],
        ['workflow_verifier', 'passed'],
      ]);
    }
    // The count is the proof's, not the replay's: the replay keeps its shape.
    expect(replay.stdout).not.toContain('required_evidence');

    const json = await h.cli(['fork', 'compare', forkId, '--json']);
    expect(json.code, json.stderr).toBe(0);
    const comparison = JSON.parse(json.stdout) as { outcome: string; branches: Counted[] };
    expect(comparison.branches.map((b) => [b.branch_id, b.required_evidence])).toEqual([
      ['branch-claude', { required: 3, present: 3 }],
      ['branch-codex', { required: 3, present: 3 }],
    ]);
    expect(comparison.outcome).toBe('tie');

    const table = await h.cli(['fork', 'compare', forkId]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout.match(/^ {2}verifier passed \(3 of 3 required steps ran\)$/gm)).toHaveLength(2);
    expect(table.stdout).not.toContain('4 of 3');

    const proof = await h.cli(['fork', 'proof', forkId]);
    expect(proof.code, proof.stderr).toBe(0);
    const report = JSON.parse(proof.stdout) as { required_evidence: Counted[]; replay: unknown };
    expect(report.required_evidence).toEqual([
      { branch_id: 'branch-claude', required: 3, present: 3 },
      { branch_id: 'branch-codex', required: 3, present: 3 },
    ]);
    expect(report.replay).toEqual(published);
    // A report written before the count existed still reads as a proof report.
    const before: Record<string, unknown> = { ...report };
    delete before['required_evidence'];
    expect(ProofReportSchema.safeParse(before).success).toBe(true);
    expect(ProofReportSchema.safeParse(report).success).toBe(true);
  });
});
