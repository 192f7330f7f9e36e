import { existsSync, readFileSync, rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { lastScratchRecord } from '../../../main/demo/demo-scratch';
import { runCli } from '../../support/run-cli';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const homes: string[] = [];
// Registered after useTempDirs, so it runs first: the home still holds the record of the last scratch.
afterEach(() => {
  for (const home of homes.splice(0)) {
    const record = lastScratchRecord(home);
    if (existsSync(record)) rmSync(readFileSync(record, 'utf8').trim(), { recursive: true, force: true });
  }
});

describe('citadel demo', () => {
  it('runs a real fork with simulated runtimes through compare, select, land, replay and proof', async () => {
    const root = tempDir('citadel-demo-root-');
    homes.push(root);
    const env = { ...process.env, CITADEL_HOME: root, CITADEL_ISSUER: 'test-demo' };
    const run = await runCli(['demo', '--json'], { env });
    expect(run.code, run.stderr).toBe(0);
    const doc = JSON.parse(run.stdout) as {
      fork_id: string;
      demo: boolean;
      state: string;
      branches: { branch_id: string; state: string; failure_code: string | null }[];
      landing: { token: string; merge_commit: string };
      replay_file: string;
      proof_file: string;
      proof_digest: string;
    };
    expect(doc).toMatchObject({
      demo: true,
      state: 'landed',
      schema_version: 2,
      comparison: { outcome: 'recommend', recommended_branch_id: 'branch-claude-sonnet' },
      selection: { branch_id: 'branch-claude-sonnet', actor: 'citadel-demo' },
    });
    expect(doc.landing.token).toMatch(/^[0-9a-f]{12}$/);
    const proof = JSON.parse(readFileSync(doc.proof_file, 'utf8')) as { counts: unknown; replay: { fork: { demo: boolean } } };
    // Contained, the simulated runtimes reach no provider: with a gateway that saw no served model, their own output proves nothing.
    expect(proof.counts).toEqual({ branches: 2, comparable: 2, verified_receipts: 2, model_proof: { passed: 0, failed: 0, unknown: 2 } });
    expect(proof.replay.fork.demo).toBe(true);
    expect(JSON.parse(readFileSync(doc.replay_file, 'utf8'))).toEqual(proof.replay);
    // The merge landed in the scratch repository, and the replay carries no path or repository identity.
    const replayText = readFileSync(doc.replay_file, 'utf8');
    expect(replayText).not.toContain('/tmp');
    expect(replayText).not.toContain(doc.landing.merge_commit);
    expect(doc.branches).toEqual([
      expect.objectContaining({ branch_id: 'branch-claude-sonnet', state: 'passed', failure_code: null }),
      expect.objectContaining({ branch_id: 'branch-codex-gpt', state: 'failed', failure_code: 'VERIFIER_FAILED' }),
    ]);
    const listed = JSON.parse((await runCli(['fork', 'status', '--json'], { env })).stdout) as { forks: { fork_id: string; demo: boolean }[] };
    expect(listed.forks).toEqual([expect.objectContaining({ fork_id: doc.fork_id, demo: true })]);
    const human = await runCli(['fork', 'status'], { env });
    expect(human.stdout).toContain(`${doc.fork_id} [demo]`);
  });

  it('falls back to the file key store, saying so, when no OS keychain answers', async () => {
    const root = tempDir('citadel-demo-root-');
    homes.push(root);
    const env = { ...process.env, CITADEL_HOME: root, CITADEL_ISSUER: 'test-demo', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' };
    const run = await runCli(['demo'], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('weaker file key store');
    expect(run.stdout).toMatch(/branch-claude-sonnet\s+claude\s+passed/);
    expect(run.stdout).toMatch(/landed: merge commit [0-9a-f]{40}/);
    expect(run.stdout).toContain(`Scratch folder: ${readFileSync(lastScratchRecord(root), 'utf8').trim()} (the next citadel demo replaces it`);
  });

  it("replaces the previous demo's scratch folder instead of adding one per run", async () => {
    const root = tempDir('citadel-demo-root-');
    homes.push(root);
    const env = { ...process.env, CITADEL_HOME: root, CITADEL_ISSUER: 'test-demo' };
    const scratchOf = async (): Promise<string> => {
      const run = await runCli(['demo', '--json'], { env });
      expect(run.code, run.stderr).toBe(0);
      return (JSON.parse(run.stdout) as { scratch: string }).scratch;
    };
    const first = await scratchOf();
    expect(existsSync(first)).toBe(true);
    const second = await scratchOf();
    expect([existsSync(first), existsSync(second), second === first]).toEqual([false, true, false]);
    expect(readFileSync(lastScratchRecord(root), 'utf8').trim()).toBe(second);
  });
});
