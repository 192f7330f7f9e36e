/**
 * The trusted-key list (issue 12, item 1) over the real file key store: the two accepted forms,
 * idempotent import, typed refusals (a FIFO refused at once, never blocking), removal by the
 * fingerprint or the full digest, and a corrupt list that trusts nothing and is never overwritten.
 */
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openKeyStore } from '../../../main/evidence/keys/key-store';
import { publicKeyDigest, publicKeyHex, rawPublicKey } from '../../../main/evidence/signing/public-key';
import { fingerprintOf, importTrustedKey, isTrustedKey, listTrustedKeys, removeTrustedKey } from '../../../main/evidence/trust/trusted-keys';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const now = new Date('2026-12-01T12:00:00.000Z');

function freshKey(): { hex: string; digest: string } {
  const { publicKey } = generateKeyPairSync('ed25519');
  return { hex: publicKeyHex(publicKey), digest: publicKeyDigest(rawPublicKey(publicKey)) };
}

describe('trusted public keys', () => {
  it('imports a signer.json and a bare key once each, lists and removes them, and refuses bad files with a typed code', async () => {
    const dir = tempDir('citadel-trusted-keys-');
    const keys = openKeyStore({ keysDir: path.join(dir, 'keys'), env: { CITADEL_KEYSTORE: 'file' } });
    expect(await listTrustedKeys(keys)).toEqual([]);
    const a = freshKey();
    const b = freshKey();
    const signerFile = path.join(dir, 'signer.json');
    writeFileSync(signerFile, JSON.stringify({ issuer_id: 'alice', public_key_hex: a.hex, public_key_digest: a.digest, key_store: 'os-keychain' }));
    const bareFile = path.join(dir, 'b.pub');
    writeFileSync(bareFile, `${b.hex}\n`);

    expect(await importTrustedKey(keys, signerFile, now)).toMatchObject({ added: true, key: { issuer_id: 'alice', public_key_digest: a.digest } });
    expect(await importTrustedKey(keys, signerFile, now)).toMatchObject({ added: false });
    expect(await importTrustedKey(keys, bareFile, now)).toMatchObject({ added: true, key: { issuer_id: null, public_key_digest: b.digest } });
    expect((await listTrustedKeys(keys)).map((k) => k.public_key_digest)).toEqual([a.digest, b.digest]);
    expect(await isTrustedKey(keys, a.digest)).toBe(true);
    expect(await isTrustedKey(keys, freshKey().digest)).toBe(false);

    const fifo = path.join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const lying = path.join(dir, 'lying.json');
    writeFileSync(lying, JSON.stringify({ issuer_id: 'alice', public_key_hex: a.hex, public_key_digest: b.digest, key_store: 'file' }));
    const extra = path.join(dir, 'extra.json');
    writeFileSync(extra, JSON.stringify({ issuer_id: 'alice', public_key_hex: a.hex, public_key_digest: a.digest, key_store: 'file', trusted: true }));
    const big = path.join(dir, 'big');
    writeFileSync(big, `${a.hex}${' '.repeat(20_000)}`);
    for (const file of [fifo, lying, extra, big, dir, path.join(dir, 'missing'), path.join(dir, 'b.pub.nope')]) {
      await expect(importTrustedKey(keys, file, now), file).rejects.toMatchObject({ code: 'TRUSTED_KEY_FILE_INVALID' });
    }

    expect(await removeTrustedKey(keys, fingerprintOf(a.digest))).toMatchObject({ public_key_digest: a.digest });
    await expect(removeTrustedKey(keys, fingerprintOf(a.digest))).rejects.toMatchObject({ code: 'TRUSTED_KEY_NOT_FOUND' });
    expect(await removeTrustedKey(keys, b.digest)).toMatchObject({ public_key_digest: b.digest });
    expect(await listTrustedKeys(keys)).toEqual([]);
  });

  it('a corrupt list, or one whose digest is not its key, trusts nothing and is never overwritten', async () => {
    const dir = tempDir('citadel-trusted-keys-corrupt-');
    const keys = openKeyStore({ keysDir: path.join(dir, 'keys'), env: { CITADEL_KEYSTORE: 'file' } });
    const a = freshKey();
    const file = path.join(dir, 'a.pub');
    writeFileSync(file, a.hex);
    await importTrustedKey(keys, file, now);
    const listFile = path.join(dir, 'keys', '.trusted-keys.json');
    const good = JSON.parse(readFileSync(listFile, 'utf8')) as { keys: { public_key_digest: string }[] };
    for (const corrupt of ['not json', JSON.stringify({ ...good, keys: [{ ...good.keys[0], public_key_digest: freshKey().digest }] })]) {
      writeFileSync(listFile, corrupt, { mode: 0o600 });
      await expect(isTrustedKey(keys, a.digest)).rejects.toMatchObject({ code: 'TRUSTED_KEYS_CORRUPT' });
      await expect(importTrustedKey(keys, file, now)).rejects.toMatchObject({ code: 'TRUSTED_KEYS_CORRUPT' });
      expect(readFileSync(listFile, 'utf8')).toBe(`${corrupt}`);
    }
  });
});
