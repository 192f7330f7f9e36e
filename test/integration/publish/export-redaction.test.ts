/**
 * Secrets typed into every free-text input that could reach a public export (objective, selection
 * reason and actor, runtime output and failure text, source edits, model strings) never appear in
 * a replay or proof; exports are byte-identical across runs; a secret-shaped model fails closed.
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ModelIdSchema } from '../../../shared/executors/profile-schema';
import { SECRET_CORPUS } from '../../fixtures/secrets/corpus';
import { FIXED_SUM, ForkHarness } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const secrets = SECRET_CORPUS.map((entry) => entry.secret);

describe('public exports are redacted and deterministic', () => {
  it(`keeps all ${secrets.length} secret shapes out of replay and proof, byte for byte the same each time`, async () => {
    expect(secrets.length).toBeGreaterThanOrEqual(30);
    const h = new ForkHarness(tempDir('citadel-export-'));
    const allSecrets = secrets.join('\n');
    await h.simulate({
      claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }, { path: 'config.txt', content: allSecrets }] },
      codex: { outcome: 'auth_error', edits: [{ path: 'leak.txt', content: allSecrets }] },
    });
    const objective = `Fix the sum function. Credentials for context:\n${allSecrets}`;
    const start = await h.cli(['fork', 'start', objective, '--runtimes', 'claude,codex', '--repo', h.repo, '--json']);
    expect(start.code, start.stderr).toBe(0);
    const forkId = (JSON.parse(start.stdout) as { fork_id: string }).fork_id;
    // Only one comparable branch: selection needs ready, so the export covers an unselected fork here
    // and the reason/actor inputs are exercised through a second, ready fork below.
    const exports: string[] = [];
    for (let i = 0; i < 2; i++) {
      const replay = await h.cli(['fork', 'replay', forkId]);
      const proof = await h.cli(['fork', 'proof', forkId]);
      expect(replay.code, replay.stdout + replay.stderr).toBe(0);
      expect(proof.code, proof.stdout + proof.stderr).toBe(0);
      exports.push(replay.stdout, proof.stdout);
    }
    expect(exports[2]).toBe(exports[0]);
    expect(exports[3]).toBe(exports[1]);
    for (const text of exports) {
      for (const secret of secrets) expect(text.includes(secret.slice(0, 12)), secret.slice(0, 6)).toBe(false);
      expect(text).not.toContain(h.repo);
      expect(text).not.toContain(h.root);
    }
  });

  it('keeps selection reasons and actors out of exports', async () => {
    const h = new ForkHarness(tempDir('citadel-export-'));
    await h.simulate({ edits: [{ path: 'src/sum.js', content: FIXED_SUM }] });
    const { doc } = await h.startJson(['--runtimes', 'claude,codex']);
    expect(doc.state).toBe('ready');
    const reason = `chosen because ${secrets.slice(0, 20).join(' ')}`;
    const select = await h.cli(['fork', 'select', doc.fork_id, 'branch-claude', '--reason', reason, '--actor', 'alice@example.com', '--json']);
    expect(select.code, select.stdout).toBe(0);
    const replay = await h.cli(['fork', 'replay', doc.fork_id]);
    expect(replay.code, replay.stdout).toBe(0);
    expect(replay.stdout).not.toContain('alice');
    for (const secret of secrets.slice(0, 20)) expect(replay.stdout.includes(secret.slice(0, 12))).toBe(false);
    expect(JSON.parse(replay.stdout)).toMatchObject({ selection: { selected: true, branch_id: 'branch-claude' } });
  });

  const modelShapedSecrets = [
    SECRET_CORPUS.find((entry) => ModelIdSchema.safeParse(entry.secret).success && entry.rule.startsWith('citadel/')),
    // A 40-hex token has a commit id's shape; as a model id it is a secret all the same.
    SECRET_CORPUS.find((entry) => entry.shape === 'github-classic-oauth-40-hex'),
  ];
  // Both shapes in one fork, one profile each: each must be caught at its own branch's path, so
  // either guard removed still fails this test.
  it(`refuses to export a secret-shaped model string (${modelShapedSecrets.map((entry) => entry?.shape).join(', ')}), naming the field and writing nothing`, async () => {
    for (const modelShaped of modelShapedSecrets) {
      expect(modelShaped, 'the corpus holds a secret that also fits the public model grammar').toBeDefined();
      expect(ModelIdSchema.safeParse(modelShaped?.secret).success).toBe(true);
    }
    const h = new ForkHarness(tempDir('citadel-export-'));
    await h.simulate({ edits: [{ path: 'src/sum.js', content: FIXED_SUM }] });
    const executors = path.join(h.base, 'executors.json');
    // Profile ids in branch order: claude-a is branches[0], claude-b branches[1].
    const secretProfiles = modelShapedSecrets.map((entry, i) => ({ profile_id: `claude-${'ab'[i]}`, runtime: 'claude', model: entry?.secret, local_provider: null, adapter_options: {} }));
    writeFileSync(
      executors,
      JSON.stringify({
        schema_version: 1,
        executors: [...secretProfiles, { profile_id: 'codex-a', runtime: 'codex', model: null, local_provider: null, adapter_options: {} }],
      }),
    );
    const { doc } = await h.startJson(['--executors', executors]);
    expect(doc.branches.map((b) => b.branch_id).slice(0, 2)).toEqual(['branch-claude-a', 'branch-claude-b']);
    const output = path.join(h.base, 'replay.json');
    const replay = await h.cli(['fork', 'replay', doc.fork_id, '--output', output, '--json']);
    expect(replay.code).toBe(1);
    const error = (JSON.parse(replay.stdout) as { error: { code: string; message: string; violations: { path: string }[] } }).error;
    expect(error.code).toBe('REPLAY_REDACTION_VIOLATION');
    expect(error.violations.map((v) => v.path)).toEqual(expect.arrayContaining(['$.branches[0].requested_model', '$.branches[1].requested_model']));
    for (const modelShaped of modelShapedSecrets) expect(JSON.stringify(error)).not.toContain(modelShaped?.secret.slice(0, 12));
    expect(existsSync(output)).toBe(false);
    const proof = await h.cli(['fork', 'proof', doc.fork_id, '--output', output, '--json']);
    expect(proof.code).toBe(1);
    expect(existsSync(output)).toBe(false);
  });
});
