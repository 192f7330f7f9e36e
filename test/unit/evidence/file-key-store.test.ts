import { execFileSync } from 'node:child_process';
import { createPublicKey } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openKeyStore } from '../../../main/evidence/keys/key-store';
import { fileKeyBackend } from '../../../main/evidence/keys/file-key-backend';
import { generateSigningKey, privateKeyFromText, privateKeyToText } from '../../../main/evidence/keys/private-key-text';
import { publicKeyDigest, rawPublicKey } from '../../../main/evidence/signing/public-key';
import { useTempDirs } from '../../support/temp-dir';

const FILE_ENV = { CITADEL_KEYSTORE: 'file' };

describe('file key store (CITADEL_KEYSTORE=file)', () => {
  const tempDir = useTempDirs();
  const keysDirIn = (root: string): string => path.join(root, 'keys');

  it('creates <keysDir>/<issuer>.key with mode 0600 in a 0700 folder, and reports itself as weaker', async () => {
    const keysDir = keysDirIn(tempDir());
    const store = openKeyStore({ keysDir, env: FILE_ENV });
    expect(store.store).toEqual({ kind: 'file', weaker: true });

    const key = await store.loadOrCreateSigningKey('local-alice');
    const file = path.join(keysDir, 'local-alice.key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(keysDir).mode & 0o777).toBe(0o700);
    expect(readdirSync(keysDir)).toEqual(['local-alice.key']); // no temp file left behind
    expect(key.store).toEqual({ kind: 'file', weaker: true });
    expect(key.issuerId).toBe('local-alice');

    const stored = privateKeyFromText(readFileSync(file, 'utf8').trimEnd(), { issuerId: 'local-alice', store: 'file' });
    expect(stored.equals(key.privateKey)).toBe(true);
    expect(Buffer.from(rawPublicKey(stored))).toEqual(Buffer.from(key.publicKeyRaw));
    expect(key.publicKeyDigest).toBe(publicKeyDigest(key.publicKeyRaw));
    expect(key.publicKey.equals(createPublicKey(key.privateKey))).toBe(true);
  });

  it('returns the same key on every later load, from a fresh store', async () => {
    const keysDir = keysDirIn(tempDir());
    const first = await openKeyStore({ keysDir, env: FILE_ENV }).loadOrCreateSigningKey('local-alice');
    const again = await openKeyStore({ keysDir, env: FILE_ENV }).loadOrCreateSigningKey('local-alice');
    expect(again.publicKeyDigest).toBe(first.publicKeyDigest);
    const other = await openKeyStore({ keysDir, env: FILE_ENV }).loadOrCreateSigningKey('local-bob');
    expect(other.publicKeyDigest).not.toBe(first.publicKeyDigest);
  });

  it('concurrent first loads agree on one key (creation never overwrites)', async () => {
    const keysDir = keysDirIn(tempDir());
    const keys = await Promise.all(
      Array.from({ length: 8 }, () => openKeyStore({ keysDir, env: FILE_ENV }).loadOrCreateSigningKey('local-race')),
    );
    expect(new Set(keys.map((key) => key.publicKeyDigest)).size).toBe(1);
    expect(readdirSync(keysDir)).toEqual(['local-race.key']);
  });

  it('creating a key that already exists keeps the existing one (no rename over it)', async () => {
    const keysDir = keysDirIn(tempDir());
    const backend = fileKeyBackend(keysDir);
    const first = privateKeyToText(generateSigningKey());
    const second = privateKeyToText(generateSigningKey());
    expect(await backend.create('local-alice', first)).toBe(first);
    expect(await backend.create('local-alice', second)).toBe(first);
    expect(readFileSync(path.join(keysDir, 'local-alice.key'), 'utf8')).toBe(`${first}\n`);
  });

  it('a corrupt key file is SIGNING_KEY_CORRUPT and is left exactly as it was (never regenerated)', async () => {
    const keysDir = keysDirIn(tempDir());
    mkdirSync(keysDir, { mode: 0o700 });
    const file = path.join(keysDir, 'local-alice.key');
    writeFileSync(file, 'garbage\n', { mode: 0o600 });
    const store = openKeyStore({ keysDir, env: FILE_ENV });
    await expect(store.loadOrCreateSigningKey('local-alice')).rejects.toMatchObject({ code: 'SIGNING_KEY_CORRUPT' });
    expect(readFileSync(file, 'utf8')).toBe('garbage\n');
  });

  it('refuses key files and folders that others can read, or symlinks, with KEY_STORE_INSECURE', async () => {
    const keysDir = keysDirIn(tempDir());
    const store = openKeyStore({ keysDir, env: FILE_ENV });
    await store.loadOrCreateSigningKey('local-alice');
    const file = path.join(keysDir, 'local-alice.key');

    chmodSync(file, 0o640);
    await expect(store.loadOrCreateSigningKey('local-alice')).rejects.toMatchObject({ code: 'KEY_STORE_INSECURE' });
    chmodSync(file, 0o600);

    chmodSync(keysDir, 0o755);
    await expect(store.loadOrCreateSigningKey('local-alice')).rejects.toMatchObject({ code: 'KEY_STORE_INSECURE' });
    await expect(store.status()).resolves.toMatchObject({ ready: false, error: { code: 'KEY_STORE_INSECURE' } });
    chmodSync(keysDir, 0o700);

    symlinkSync(file, path.join(keysDir, 'local-link.key'));
    await expect(store.loadOrCreateSigningKey('local-link')).rejects.toMatchObject({ code: 'KEY_STORE_INSECURE' });

    // A FIFO is refused at once (opened non-blocking), never waited on for a writer.
    execFileSync('mkfifo', ['-m', '600', path.join(keysDir, 'local-fifo.key')]);
    await expect(store.loadOrCreateSigningKey('local-fifo')).rejects.toMatchObject({ code: 'KEY_STORE_INSECURE', message: expect.stringMatching(/not a regular file/) });

    const elsewhere = tempDir();
    const linkedDir = path.join(tempDir(), 'keys');
    symlinkSync(elsewhere, linkedDir);
    await expect(openKeyStore({ keysDir: linkedDir, env: FILE_ENV }).loadOrCreateSigningKey('local-alice')).rejects.toMatchObject({
      code: 'KEY_STORE_INSECURE',
    });
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('a key folder that cannot be created is KEY_STORE_IO_FAILED', async () => {
    const notADir = path.join(tempDir(), 'file');
    writeFileSync(notADir, '');
    const store = openKeyStore({ keysDir: path.join(notADir, 'keys'), env: FILE_ENV });
    await expect(store.loadOrCreateSigningKey('local-alice')).rejects.toMatchObject({ code: 'KEY_STORE_IO_FAILED' });
  });

  it('checks the issuer id before touching the disk', async () => {
    const keysDir = keysDirIn(tempDir());
    const store = openKeyStore({ keysDir, env: FILE_ENV });
    for (const id of ['../escape', 'a/b', '.hidden', 'Upper']) {
      await expect(store.loadOrCreateSigningKey(id)).rejects.toMatchObject({ code: 'ISSUER_ID_INVALID' });
    }
    expect(existsSync(keysDir)).toBe(false);
  });

  it('status is ready before the folder exists and once it holds keys', async () => {
    const keysDir = keysDirIn(tempDir());
    const store = openKeyStore({ keysDir, env: FILE_ENV });
    await expect(store.status()).resolves.toEqual({ store: { kind: 'file', weaker: true }, ready: true });
    await store.loadOrCreateSigningKey('local-alice');
    await expect(store.status()).resolves.toEqual({ store: { kind: 'file', weaker: true }, ready: true });
  });
});

describe('choosing the key store', () => {
  it('uses the OS keychain unless CITADEL_KEYSTORE=file, without touching it when opened', () => {
    for (const env of [{}, { CITADEL_KEYSTORE: '' }, { CITADEL_KEYSTORE: 'os-keychain' }]) {
      expect(openKeyStore({ keysDir: '/nonexistent', env }).store).toEqual({ kind: 'os-keychain', weaker: false });
    }
  });

  it('refuses an unknown CITADEL_KEYSTORE instead of guessing', () => {
    for (const value of ['files', 'FILE', 'keychain', 'none']) {
      expect(() => openKeyStore({ keysDir: '/nonexistent', env: { CITADEL_KEYSTORE: value } })).toThrow(
        expect.objectContaining({ code: 'KEY_STORE_CONFIG_INVALID' }),
      );
    }
  });
});
