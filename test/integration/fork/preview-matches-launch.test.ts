import { describe, expect, it } from 'vitest';
import { digestOf } from '../../../shared/digest';
import type { ExecutorProfile } from '../../../shared/executors/profile-schema';
import { verifyFork } from '../../../main/evidence/verify-fork';
import { openOrchestratorContext } from '../../../main/host/open-context';
import { createMissionControlService } from '../../../main/mission-control/service';
import { BUILTIN_ADAPTERS } from '../../../main/runtimes/registry';
import type { RuntimeAdapter } from '../../../main/runtimes/adapter-contract/runtime-adapter';
import { ForkHarness } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

const PROFILES: ExecutorProfile[] = [
  { profile_id: 'claude-a', runtime: 'claude', model: null, local_provider: null, adapter_options: {} },
  { profile_id: 'codex-a', runtime: 'codex', model: null, local_provider: null, adapter_options: {} },
];

/** A built-in adapter under another executable name (found nowhere) and with one more argument. */
function relabelled(adapter: RuntimeAdapter): RuntimeAdapter {
  const executable = `citadel-test-${adapter.id}-not-installed`;
  return {
    ...adapter,
    executable,
    invocation: (profile) => {
      const builtin = adapter.invocation(profile);
      return { executable, args: [...builtin.args, '--citadel-test-marker'] };
    },
  };
}

const CUSTOM_ADAPTERS = { claude: relabelled(BUILTIN_ADAPTERS.claude), codex: relabelled(BUILTIN_ADAPTERS.codex) };

describe('preview and start run with the same adapters', () => {
  it("shows the host's own adapter argv, and the fork launches exactly that argv", async () => {
    const h = new ForkHarness(tempDir('citadel-preview-'));
    const ctx = await openOrchestratorContext({ env: h.env({ CITADEL_KEYSTORE: 'file' }), adapters: CUSTOM_ADAPTERS });
    const service = createMissionControlService(ctx, { log: () => undefined });
    const request = { objective: 'Fix the sum function', repo: h.repo, executors: { kind: 'executors', profiles: PROFILES }, workflow_file: h.workflowFile, budget_seconds: null };

    const preview = await service.handle('previewFork', request);
    if (!preview.ok) throw new Error(`preview refused: ${preview.error.code}`);
    const argvOf = (branchId: string) => preview.value.executors?.profiles.find((p) => p.branch_id === branchId)?.argv;
    expect(argvOf('branch-claude-a')).toEqual(['citadel-test-claude-not-installed', ...BUILTIN_ADAPTERS.claude.invocation(PROFILES[0]!).args, '--citadel-test-marker']);
    expect(argvOf('branch-codex-a')).toEqual(['citadel-test-codex-not-installed', ...BUILTIN_ADAPTERS.codex.invocation(PROFILES[1]!).args, '--citadel-test-marker']);

    const started = await service.handle('startFork', request);
    if (!started.ok) throw new Error(`start refused: ${started.error.code}`);
    await service.drained();

    // Neither executable exists, so nothing ran; each signed receipt still binds the argv it was to launch.
    const verified = await verifyFork(ctx, started.value.fork_id);
    expect(verified.branches.map((b) => b.branch_id).sort()).toEqual(['branch-claude-a', 'branch-codex-a']);
    for (const branch of verified.branches) {
      expect(branch.receipt?.failure_code).toBe('RUNTIME_NOT_FOUND');
      expect(branch.receipt?.argv_digest).toBe(digestOf(argvOf(branch.branch_id)));
    }
  });
});
