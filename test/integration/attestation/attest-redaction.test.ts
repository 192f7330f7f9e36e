/**
 * Issue 15: the replay's secret-shape corpus runs through `citadel fork attest` too. Secrets typed
 * into every free-text input (objective, runtime edits) never reach a payload, decoded or not; a
 * secret-shaped model string fails the attestation closed, naming the field, writing nothing.
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

/** The bundle as a reader sees it: the lines, and each envelope's payload decoded. */
function readable(bundle: string): string[] {
  const lines = bundle.split('\n').filter(Boolean);
  return [...lines, ...lines.map((line) => Buffer.from((JSON.parse(line) as { payload: string }).payload, 'base64').toString('utf8'))];
}

describe('attestations are redacted as replays are', () => {
  it(`keeps all ${secrets.length} secret shapes and every local path out of the bundle, byte for byte the same each time`, async () => {
    expect(secrets.length).toBeGreaterThanOrEqual(30);
    const h = new ForkHarness(tempDir('citadel-attest-secrets-'));
    const allSecrets = secrets.join('\n');
    await h.simulate({
      claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }, { path: 'config.txt', content: allSecrets }] },
      codex: { outcome: 'auth_error', edits: [{ path: 'leak.txt', content: allSecrets }] },
    });
    const start = await h.cli(['fork', 'start', `Fix the sum function. Credentials for context:\n${allSecrets}`, '--runtimes', 'claude,codex', '--repo', h.repo, '--json']);
    expect(start.code, start.stderr).toBe(0);
    const forkId = (JSON.parse(start.stdout) as { fork_id: string }).fork_id;
    const first = await h.cli(['fork', 'attest', forkId]);
    const second = await h.cli(['fork', 'attest', forkId]);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    const texts = readable(first.stdout);
    expect(texts.length).toBeGreaterThanOrEqual(4);
    for (const text of texts) {
      for (const secret of secrets) expect(text.includes(secret.slice(0, 12)), secret.slice(0, 6)).toBe(false);
      expect(text).not.toContain(h.repo);
      expect(text).not.toContain(h.root);
    }
  });

  it('refuses a secret-shaped model string, naming the field and writing nothing', async () => {
    const modelShaped = SECRET_CORPUS.find((entry) => ModelIdSchema.safeParse(entry.secret).success && entry.rule.startsWith('citadel/'));
    expect(modelShaped, 'the corpus holds a secret that also fits the public model grammar').toBeDefined();
    const h = new ForkHarness(tempDir('citadel-attest-secrets-'));
    await h.simulate({ edits: [{ path: 'src/sum.js', content: FIXED_SUM }] });
    const executors = path.join(h.base, 'executors.json');
    writeFileSync(
      executors,
      JSON.stringify({
        schema_version: 1,
        executors: [
          { profile_id: 'claude-a', runtime: 'claude', model: modelShaped?.secret, local_provider: null, adapter_options: {} },
          { profile_id: 'codex-a', runtime: 'codex', model: null, local_provider: null, adapter_options: {} },
        ],
      }),
    );
    const { doc } = await h.startJson(['--executors', executors]);
    const output = path.join(h.base, 'fork.intoto.jsonl');
    const attest = await h.cli(['fork', 'attest', doc.fork_id, '--output', output, '--json']);
    expect(attest.code, attest.stdout).toBe(1);
    const error = (JSON.parse(attest.stdout) as { error: { code: string; violations: { path: string }[] } }).error;
    expect(error.code).toBe('REPLAY_REDACTION_VIOLATION');
    expect(error.violations.map((v) => v.path)).toContain('$.branches[0].requested_model');
    expect(JSON.stringify(error)).not.toContain(modelShaped?.secret.slice(0, 12));
    expect(existsSync(output)).toBe(false);
  });
});
