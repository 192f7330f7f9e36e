/**
 * Trusted-key import (issue 12, item 1): `citadel trust import | list | remove` through the real
 * CLI. A fork made on machine A (its own key) is copied to machine B, whose key store holds another
 * key or none: untrusted there until A's public key is imported, trusted while it is, untrusted
 * again once removed; another imported key trusts nothing of A's. Run with the file key store and
 * with the real OS keychain (Secret Service under test/support/with-secret-service.sh), where the
 * imported list lives outside the fork root altogether.
 */
import { generateKeyPairSync } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { publicKeyHex } from '../../../main/evidence/signing/public-key';
import { FIXED_SUM, ForkHarness, WRONG_SUM } from '../../support/fork-harness';
import type { CliRun } from '../../support/run-cli';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

interface Compared {
  outcome: string;
  recommended_branch_id: string | null;
  reasons: string[];
  branches: { branch_id: string; comparable: boolean; receipt_verified: boolean; reasons: string[] }[];
}
interface Listed {
  key_store: string;
  keys: { fingerprint: string; public_key_digest: string; issuer_id: string | null }[];
}

function json<T>(run: CliRun): T {
  try {
    return JSON.parse(run.stdout) as T;
  } catch {
    throw new Error(`no JSON (exit ${String(run.code)}):\n${run.stdout}\n${run.stderr}`);
  }
}
const errorCode = (run: CliRun): string => json<{ error: { code: string } }>(run).error.code;

/** Every file under `dir`, recursively (to show the keychain variant writes nothing of the list there). */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

async function forkOnMachineA(prefix: string): Promise<{ h: ForkHarness; forkId: string }> {
  const h = new ForkHarness(tempDir(prefix));
  await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] } });
  const { run, doc } = await h.startJson(['--runtimes', 'claude,codex', '--workflow', h.workflowFile], { CITADEL_KEYSTORE: 'file' });
  expect(run.code, run.stderr).toBe(0);
  expect(doc.state).toBe('ready');
  return { h, forkId: doc.fork_id };
}

for (const store of ['file', 'os-keychain'] as const) {
  describe(`trusted public keys in the ${store} key store`, () => {
    it('a copied fork is untrusted until its key is imported, trusted while it is, untrusted once removed', { timeout: 240_000 }, async () => {
      const { h, forkId } = await forkOnMachineA(`citadel-trust-import-${store}-`);
      const home = tempDir(`citadel-trust-b-${store}-`);
      cpSync(h.forkDir(forkId), path.join(home, 'forks', forkId), { recursive: true });
      const b = { CITADEL_HOME: home, CITADEL_KEYSTORE: store };
      const cli = (args: string[]): Promise<CliRun> => h.cli(args, b);
      const compare = async (): Promise<Compared> => json<Compared>(await cli(['fork', 'compare', forkId, '--json']));
      // B has no key of its own yet; giving it one (as its first fork would) changes nothing for A's fork.
      const signerFile = path.join(h.forkDir(forkId), 'signer.json');
      const signer = h.readJson<{ public_key_digest: string }>(signerFile);
      const fingerprint = signer.public_key_digest.slice('sha256:'.length, 'sha256:'.length + 16);
      try {
        const before = await compare();
        expect(before).toMatchObject({ outcome: 'insufficient-evidence', recommended_branch_id: null });
        for (const branch of before.branches) expect(branch.reasons).toContain('signer_untrusted');

        // Refusals, each typed, none changing the list.
        const garbage = path.join(home, 'garbage.txt');
        writeFileSync(garbage, 'not a key\n');
        const lying = path.join(home, 'lying-signer.json');
        writeFileSync(lying, JSON.stringify({ ...h.readJson(signerFile), public_key_digest: `sha256:${'0'.repeat(64)}` }));
        for (const file of [garbage, lying, path.join(home, 'missing.json'), home]) {
          expect(errorCode(await cli(['trust', 'import', file, '--json'])), file).toBe('TRUSTED_KEY_FILE_INVALID');
        }
        expect(errorCode(await cli(['trust', 'remove', fingerprint, '--json']))).toBe('TRUSTED_KEY_NOT_FOUND');

        // Another key (bare hex, as signer.json's public_key_hex) trusts nothing of A's.
        const other = path.join(home, 'other.pub');
        writeFileSync(other, `${publicKeyHex(generateKeyPairSync('ed25519').publicKey)}\n`);
        const otherImport = await cli(['trust', 'import', other, '--json']);
        expect(otherImport.code, otherImport.stdout).toBe(0);
        expect((await compare()).branches.every((x) => x.reasons.includes('signer_untrusted'))).toBe(true);

        // A's own signer.json, the form Citadel writes.
        const imported = await cli(['trust', 'import', signerFile, '--json']);
        expect(imported.code, imported.stdout).toBe(0);
        expect(json<{ added: boolean; key: { fingerprint: string } }>(imported)).toMatchObject({ added: true, key: { fingerprint } });
        expect(json<{ added: boolean }>(await cli(['trust', 'import', signerFile, '--json'])).added).toBe(false);
        const listed = json<Listed>(await cli(['trust', 'list', '--json']));
        expect(listed.key_store).toBe(store);
        expect(listed.keys.map((k) => k.fingerprint)).toContain(fingerprint);
        const trusted = await compare();
        expect(trusted).toMatchObject({ outcome: 'recommend', recommended_branch_id: 'branch-claude' });
        expect(trusted.branches.every((x) => x.receipt_verified && x.comparable)).toBe(true);
        expect((await cli(['trust', 'list'])).stdout).toContain(fingerprint);

        if (store === 'os-keychain') {
          // The list is in the keychain: nothing under the fork root names the imported key.
          for (const file of filesUnder(home)) {
            if (file === other || file === lying) continue;
            expect(readFileSync(file, 'utf8').includes('trusted-keys'), file).toBe(false);
          }
          expect(existsSync(path.join(home, 'keys', '.trusted-keys.json'))).toBe(false);
        } else {
          // The file store is the operator's weaker opt-in: a corrupt list trusts nothing and is never overwritten.
          const listFile = path.join(home, 'keys', '.trusted-keys.json');
          const kept = readFileSync(listFile, 'utf8');
          writeFileSync(listFile, '{"schema_version":1,"keys":[{"trusted":true}]}\n', { mode: 0o600 });
          const corrupt = await compare();
          expect(corrupt.branches.every((x) => x.reasons.includes('signer_untrusted'))).toBe(true);
          expect(corrupt.reasons[0]).toContain('TRUSTED_KEYS_CORRUPT');
          expect(errorCode(await cli(['trust', 'import', signerFile, '--json']))).toBe('TRUSTED_KEYS_CORRUPT');
          writeFileSync(listFile, kept, { mode: 0o600 });
        }

        const removed = await cli(['trust', 'remove', fingerprint, '--json']);
        expect(removed.code, removed.stdout).toBe(0);
        const after = await compare();
        expect(after.outcome).toBe('insufficient-evidence');
        for (const branch of after.branches) expect(branch.reasons).toContain('signer_untrusted');
      } finally {
        // The keychain outlives the test: leave no imported key behind.
        const left = json<Listed>(await cli(['trust', 'list', '--json']));
        for (const key of left.keys ?? []) await cli(['trust', 'remove', key.fingerprint, '--json']);
      }
    });
  });
}
