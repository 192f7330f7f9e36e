import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openKeyStore } from '../../../main/evidence/keys/key-store';
import { KEYCHAIN_SERVICE } from '../../../main/evidence/keys/os-keychain-backend';
import { privateKeyFromText } from '../../../main/evidence/keys/private-key-text';
import { publicKeyHex } from '../../../main/evidence/signing/public-key';
import { useTempDirs } from '../../support/temp-dir';
import { buildKeyStoreChild, runKeyStoreChild } from './key-store-child';

// These tests need a real Secret Service and FAIL without one: run them through
// `bash test/support/with-secret-service.sh npx vitest run ...` (the npm test command does).
const KEYCHAIN_ENV: NodeJS.ProcessEnv = { ...process.env, CITADEL_KEYSTORE: '' };

// secret-tool finds the library's items by the attributes it writes: service and username.
function secretToolLookup(issuerId: string): string | null {
  try {
    return execFileSync('secret-tool', ['lookup', 'service', KEYCHAIN_SERVICE, 'username', issuerId], { encoding: 'utf8', timeout: 10_000 });
  } catch {
    return null;
  }
}

function secretToolStore(issuerId: string, secret: string): void {
  execFileSync('secret-tool', ['store', '--label', `test ${issuerId}`, 'service', KEYCHAIN_SERVICE, 'username', issuerId], {
    input: secret,
    timeout: 10_000,
  });
}

describe('OS keychain key store (real Secret Service)', () => {
  const tempDir = useTempDirs();
  const created: string[] = [];
  let child: { script: string; dispose: () => void };

  const uniqueIssuer = (): string => {
    const id = `test-${process.pid}-${randomBytes(6).toString('hex')}`;
    created.push(id);
    return id;
  };
  const keychainStore = (keysDir = tempDir()) => openKeyStore({ keysDir, env: KEYCHAIN_ENV });

  beforeAll(async () => {
    const status = await keychainStore().status();
    if (!status.ready) {
      throw new Error(`no usable Secret Service (${status.error.code}: ${status.error.message}); run under test/support/with-secret-service.sh`);
    }
    child = await buildKeyStoreChild();
  });
  afterAll(() => child?.dispose());
  afterEach(() => {
    for (const id of created.splice(0)) {
      // Exits non-zero when nothing matched (the tests that never reach the keychain).
      spawnSync('secret-tool', ['clear', 'service', KEYCHAIN_SERVICE, 'username', id], { timeout: 10_000 });
      expect(secretToolLookup(id)).toBeNull();
    }
  });

  it('creates the key in the keychain (service citadel, account = issuer id) and nowhere else', async () => {
    const issuer = uniqueIssuer();
    const keysDir = tempDir();
    expect(secretToolLookup(issuer)).toBeNull();

    const key = await keychainStore(keysDir).loadOrCreateSigningKey(issuer);
    expect(key.store).toEqual({ kind: 'os-keychain', weaker: false });

    const stored = secretToolLookup(issuer);
    expect(stored).not.toBeNull();
    expect(privateKeyFromText(stored ?? '', { issuerId: issuer, store: 'test' }).equals(key.privateKey)).toBe(true);
    expect(readdirSync(keysDir)).toEqual([]);
  });

  it('loads the same key again, in this process and in a new one, and creates it from a child too', async () => {
    const issuer = uniqueIssuer();
    const key = await keychainStore().loadOrCreateSigningKey(issuer);
    const again = await keychainStore().loadOrCreateSigningKey(issuer);
    expect(again.publicKeyDigest).toBe(key.publicKeyDigest);

    const run = await runKeyStoreChild(child.script, ['load', tempDir(), issuer, '5000'], KEYCHAIN_ENV);
    expect(run.output).toMatchObject({ ok: true, publicKeyHex: publicKeyHex(key.publicKey), store: { kind: 'os-keychain' } });

    const childIssuer = uniqueIssuer();
    const fromChild = await runKeyStoreChild(child.script, ['load', tempDir(), childIssuer, '5000'], KEYCHAIN_ENV);
    expect(fromChild.output).toMatchObject({ ok: true });
    const loaded = await keychainStore().loadOrCreateSigningKey(childIssuer);
    expect(publicKeyHex(loaded.publicKey)).toBe(fromChild.output.publicKeyHex);
    expect(loaded.publicKeyDigest).not.toBe(key.publicKeyDigest);
  });

  it('a corrupt keychain value is SIGNING_KEY_CORRUPT and is never replaced', async () => {
    const issuer = uniqueIssuer();
    secretToolStore(issuer, 'not a key');
    await expect(keychainStore().loadOrCreateSigningKey(issuer)).rejects.toMatchObject({ code: 'SIGNING_KEY_CORRUPT' });
    expect(secretToolLookup(issuer)).toBe('not a key');
  });

  it('checks the issuer id before touching the keychain', async () => {
    const run = await runKeyStoreChild(child.script, ['load', tempDir(), '../escape', '5000'], {
      ...KEYCHAIN_ENV,
      DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent',
    });
    expect(run.output).toMatchObject({ ok: false, code: 'ISSUER_ID_INVALID' });
  });

  it('without a D-Bus session: KEYCHAIN_UNAVAILABLE at once and on retry (no kernel-keyring fallback), status not ready', async () => {
    const withoutBus = { ...KEYCHAIN_ENV };
    delete withoutBus.DBUS_SESSION_BUS_ADDRESS;
    const envs = [withoutBus, { ...KEYCHAIN_ENV, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent' }];
    const unavailable = { ok: false, code: 'KEYCHAIN_UNAVAILABLE', message: expect.stringContaining('CITADEL_KEYSTORE=file') };
    for (const env of envs) {
      const run = await runKeyStoreChild(child.script, ['load-twice', tempDir(), uniqueIssuer(), '5000'], env);
      expect(run.output).toMatchObject({ first: unavailable, second: unavailable });
      expect((run.output.first as { ms: number }).ms).toBeLessThan(1000);

      const status = await runKeyStoreChild(child.script, ['status', tempDir(), '', '5000'], env);
      expect(status.output).toMatchObject({ status: { store: { kind: 'os-keychain' }, ready: false, error: { code: 'KEYCHAIN_UNAVAILABLE' } } });
    }
  });

  it('a bus that accepts but never answers: KEYCHAIN_UNAVAILABLE at the deadline, the process stays responsive', async () => {
    const socketPath = path.join(tempDir(), 'silent-bus');
    const held: Socket[] = [];
    const server = createServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    try {
      const env = { ...KEYCHAIN_ENV, DBUS_SESSION_BUS_ADDRESS: `unix:path=${socketPath}` };
      const run = await runKeyStoreChild(child.script, ['load', tempDir(), uniqueIssuer(), '800'], env, 15_000);
      expect(run.signal).toBeNull();
      expect(run.output).toMatchObject({ ok: false, code: 'KEYCHAIN_UNAVAILABLE' });
      expect(run.output.ms).toBeGreaterThanOrEqual(700);
      expect(run.output.ms).toBeLessThan(3000);
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('status is ready under a working Secret Service and reads no key', async () => {
    await expect(keychainStore().status()).resolves.toEqual({ store: { kind: 'os-keychain', weaker: false }, ready: true });
  });
});
