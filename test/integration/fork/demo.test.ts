import { describe, expect, it } from 'vitest';
import { runCli } from '../../support/run-cli';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

describe('citadel demo', () => {
  it('runs a real fork with simulated runtimes: the right fix passes, the plausible wrong one fails the verifier', async () => {
    const root = tempDir('citadel-demo-root-');
    const env = { ...process.env, CITADEL_HOME: root, CITADEL_ISSUER: 'test-demo' };
    const run = await runCli(['demo', '--json'], { env });
    expect(run.code, run.stderr).toBe(0);
    const doc = JSON.parse(run.stdout) as { fork_id: string; demo: boolean; state: string; branches: { branch_id: string; state: string; failure_code: string | null }[] };
    expect(doc).toMatchObject({ demo: true, state: 'ready', schema_version: 2 });
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
    const env = { ...process.env, CITADEL_HOME: root, CITADEL_ISSUER: 'test-demo', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' };
    const run = await runCli(['demo'], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('weaker file key store');
    expect(run.stdout).toMatch(/branch-claude-sonnet\s+claude\s+passed/);
  });
});
