import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXED_SUM, ForkHarness, parseDoc } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';

/**
 * The operator's containment choice and its display, through the real CLI as a child process:
 * `--containment` parsing, `citadel runtimes` readiness, and a runtime-only fork shown as such in
 * status, compare, replay and proof.
 */
const tempDir = useTempDirs();

interface SandboxFacts {
  backend: string | null;
  ready: boolean;
  executable: string | null;
  version: string | null;
  problem: string | null;
  install: string | null;
}

describe('--containment', () => {
  it('refuses an unknown mode as a usage error (exit 2) before anything is created', async () => {
    const h = new ForkHarness(tempDir('citadel-containment-'));
    await h.simulate({});
    for (const json of [true, false]) {
      const run = await h.cli(['fork', 'start', 'Fix the sum function', '--repo', h.repo, '--runtimes', 'claude', '--containment', 'none', ...(json ? ['--json'] : [])]);
      expect(run.code, run.stdout + run.stderr).toBe(2);
      const message = '--containment is auto or runtime-only, got "none"';
      if (json) expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'USAGE_ERROR', message } });
      else expect(run.stderr).toContain(message);
    }
    const forks = path.join(h.root, 'forks');
    expect(existsSync(forks) ? readdirSync(forks) : []).toEqual([]);
  });
});

describe('citadel runtimes: containment readiness', () => {
  it('reports bubblewrap ready with its executable and version where bwrap is on PATH', async () => {
    const h = new ForkHarness(tempDir('citadel-containment-'));
    const run = await h.cli(['runtimes', '--json'], { CODEX_OSS_BASE_URL: 'http://127.0.0.1:9/v1' });
    expect(run.code, run.stderr).toBe(0);
    const { sandbox } = JSON.parse(run.stdout) as { sandbox: SandboxFacts };
    expect(sandbox).toMatchObject({ backend: 'bubblewrap', ready: true, problem: null, install: null });
    expect(sandbox.version).toMatch(/^bubblewrap \d/);
    const text = await h.cli(['runtimes'], { CODEX_OSS_BASE_URL: 'http://127.0.0.1:9/v1' });
    expect(text.stdout).toMatch(/^containment: bubblewrap ready, \S+ \(bubblewrap \d/m);
  });

  it('reports it not ready, with the package to install, where bwrap is missing', async () => {
    const h = new ForkHarness(tempDir('citadel-containment-'));
    // PATH names only an empty directory: no bwrap (and no runtime either, which is not what this checks).
    const env = { PATH: h.bin, CODEX_OSS_BASE_URL: 'http://127.0.0.1:9/v1' };
    const run = await h.cli(['runtimes', '--json'], env);
    expect(run.code, run.stderr).toBe(0);
    const { sandbox } = JSON.parse(run.stdout) as { sandbox: SandboxFacts };
    expect(sandbox).toMatchObject({ backend: 'bubblewrap', ready: false, executable: null, version: null });
    expect(sandbox.problem).toMatch(/bwrap/);
    expect(sandbox.install).toMatch(/bubblewrap/);
    const text = await h.cli(['runtimes'], env);
    expect(text.stdout).toMatch(/^containment: bubblewrap NOT ready: .*bwrap/m);
    expect(text.stdout).toMatch(/^ {2}install: bubblewrap/m);
    expect(text.stdout).toContain('unless --containment runtime-only (weaker) is chosen');
  });
});

describe('a runtime-only fork', () => {
  it('is shown as runtime-only in status, compare (text and --json), replay and proof', async () => {
    const h = new ForkHarness(tempDir('citadel-containment-'));
    await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] } });
    const started = await h.cli(['fork', 'start', 'Fix the sum function', '--repo', h.repo, '--runtimes', 'claude,codex', '--workflow', h.workflowFile, '--containment', 'runtime-only']);
    expect(started.code, started.stderr).toBe(0);
    expect(started.stderr).toContain('warning: --containment runtime-only: no OS sandbox');
    const forkId = /fork (fork-[0-9a-z]{26}) created/.exec(started.stderr)?.[1];
    if (forkId === undefined) throw new Error(`no fork id in: ${started.stderr}`);

    const status = parseDoc(await h.cli(['fork', 'status', forkId, '--json'])) as unknown as { state: string; containment: unknown };
    expect(status.containment).toEqual({ mode: 'runtime-only' });
    const statusText = await h.cli(['fork', 'status', forkId]);
    expect(statusText.stdout).toMatch(/^ {2}containment runtime-only \(chosen: .*\) \[WEAKER\]$/m);

    const compare = await h.cli(['fork', 'compare', forkId, '--json']);
    expect(compare.code, compare.stderr).toBe(0);
    const comparison = JSON.parse(compare.stdout) as { branches: { branch_id: string; receipt_verified: boolean; containment: unknown }[] };
    expect(comparison.branches.map((b) => [b.branch_id, b.receipt_verified, b.containment])).toEqual([
      ['branch-claude', true, { mode: 'runtime-only' }],
      ['branch-codex', true, { mode: 'runtime-only' }],
    ]);
    const compareText = await h.cli(['fork', 'compare', forkId]);
    expect(compareText.stdout.match(/^ {2}containment runtime-only \(chosen: .*\) \[WEAKER\]$/gm)).toHaveLength(2);

    const replay = await h.cli(['fork', 'replay', forkId]);
    expect(replay.code, replay.stderr).toBe(0);
    const doc = JSON.parse(replay.stdout) as { contract: { containment?: unknown }; branches: { containment?: unknown }[] };
    expect(doc.contract.containment).toEqual({ mode: 'runtime-only' });
    expect(doc.branches.map((b) => b.containment)).toEqual([{ mode: 'runtime-only' }, { mode: 'runtime-only' }]);
    expect((await h.cli(['fork', 'replay', forkId])).stdout).toBe(replay.stdout);

    const proof = await h.cli(['fork', 'proof', forkId]);
    expect(proof.code, proof.stderr).toBe(0);
    const report = JSON.parse(proof.stdout) as { replay: unknown };
    expect(report.replay).toEqual(JSON.parse(replay.stdout));
  });
});

describe('a contained fork (auto, the default: bubblewrap here)', () => {
  it('shows backend, version and policy digest per branch in compare, and the backend and digests (no paths) in replay and proof', async () => {
    const h = new ForkHarness(tempDir('citadel-containment-'));
    await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] } });
    const { run, doc } = await h.startJson(['--runtimes', 'claude,codex', '--workflow', h.workflowFile, '--containment', 'auto']);
    expect(run.code, run.stderr).toBe(0);
    const forkId = doc.fork_id;

    const status = parseDoc(await h.cli(['fork', 'status', forkId, '--json'])) as unknown as {
      containment: { mode: string; backend: string; runtime_policy_digests: Record<string, string>; verifier_policy_digest: string };
    };
    expect(status.containment).toMatchObject({ mode: 'contained', backend: 'bubblewrap' });
    const digests = status.containment.runtime_policy_digests;
    expect(Object.keys(digests).sort()).toEqual(['branch-claude', 'branch-codex']);

    const comparison = JSON.parse((await h.cli(['fork', 'compare', forkId, '--json'])).stdout) as { branches: { branch_id: string; containment: unknown }[] };
    for (const b of comparison.branches) {
      expect(b.containment).toEqual({ mode: 'contained', backend: 'bubblewrap', backend_version: expect.stringMatching(/^bubblewrap \d/) as unknown, policy_digest: digests[b.branch_id] });
    }
    const compareText = (await h.cli(['fork', 'compare', forkId])).stdout;
    expect(compareText).toContain(`  containment bubblewrap (bubblewrap`);
    expect(compareText).toContain(`policy ${digests['branch-claude'] ?? 'missing'}`);
    expect(compareText).not.toContain('[WEAKER]');

    const replay = await h.cli(['fork', 'replay', forkId]);
    expect(replay.code, replay.stderr).toBe(0);
    const published = JSON.parse(replay.stdout) as { contract: { containment: unknown }; branches: { containment: unknown }[] };
    expect(published.contract.containment).toEqual({ mode: 'contained', backend: 'bubblewrap', runtime_policy_digests: digests, verifier_policy_digest: status.containment.verifier_policy_digest });
    expect(published.branches.map((b) => b.containment)).toEqual(comparison.branches.map((b) => b.containment));
    expect(replay.stdout).not.toContain(h.base);
    expect(replay.stdout).not.toContain(h.root);
    expect((await h.cli(['fork', 'replay', forkId])).stdout).toBe(replay.stdout);
    const proof = await h.cli(['fork', 'proof', forkId]);
    expect(proof.code, proof.stderr).toBe(0);
    expect((JSON.parse(proof.stdout) as { replay: unknown }).replay).toEqual(published);
  });
});
