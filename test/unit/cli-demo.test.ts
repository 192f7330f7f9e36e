import { describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli';

describe('citadel demo (foundation stage)', () => {
  it('validates the shipped example and shows digests and argv, as one JSON document with --json', async () => {
    const run = await runCli(['demo', '--json']);
    expect(run.code).toBe(0);
    const doc = JSON.parse(run.stdout) as {
      executors: { profiles: { profile_id: string; profile_digest: string }[]; executor_set_digest: string };
      legacy_runtimes: { branch_id: string; argv: string[] }[];
    };
    expect(doc.executors.profiles.map((p) => p.profile_id)).toEqual(['claude-sonnet', 'codex-lmstudio-qwen', 'codex-local-qwen']);
    expect(doc.executors.executor_set_digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(doc.legacy_runtimes.map((b) => b.branch_id)).toEqual(['branch-claude', 'branch-codex']);
    expect(doc.legacy_runtimes[1]?.argv).toEqual(['codex', 'exec', '--json', '--sandbox', 'workspace-write', '--ignore-user-config', '-']);
  });

  it('says plainly that no agent runs yet', async () => {
    const run = await runCli(['demo']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('No agent is run yet');
  });
});
