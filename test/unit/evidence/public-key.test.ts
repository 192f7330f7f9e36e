import { createHash, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { publicKeyDigest, publicKeyFromHex, publicKeyFromRaw, publicKeyHex, rawPublicKey } from '../../../main/evidence/signing/public-key';

// RFC 8032 TEST 1 public key.
const HEX = 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a';

describe('public key forms', () => {
  it('raw and hex round-trip through a KeyObject, from a public or a private key', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const raw = rawPublicKey(publicKey);
    expect(raw).toHaveLength(32);
    expect(rawPublicKey(privateKey)).toEqual(raw);
    expect(publicKeyFromRaw(raw).equals(publicKey)).toBe(true);
    expect(publicKeyHex(publicKey)).toMatch(/^[0-9a-f]{64}$/);
    expect(publicKeyFromHex(publicKeyHex(publicKey)).equals(publicKey)).toBe(true);
    expect(publicKeyHex(publicKeyFromHex(HEX))).toBe(HEX);
  });

  it('refuses anything that is not a raw 32-byte ed25519 key, with PUBLIC_KEY_INVALID', () => {
    for (const hex of [HEX.toUpperCase(), HEX.slice(2), `${HEX}00`, `0x${HEX.slice(2)}`, '']) {
      expect(() => publicKeyFromHex(hex)).toThrow(expect.objectContaining({ code: 'PUBLIC_KEY_INVALID' }));
    }
    expect(() => publicKeyFromRaw(new Uint8Array(31))).toThrow(expect.objectContaining({ code: 'PUBLIC_KEY_INVALID' }));
    expect(() => rawPublicKey(generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey)).toThrow(
      expect.objectContaining({ code: 'PUBLIC_KEY_INVALID' }),
    );
  });

  it('signer_public_key_digest is SHA-256 of the hex key as a JSON string, quotes included (D9)', () => {
    const expected = `sha256:${createHash('sha256').update(`"${HEX}"`, 'utf8').digest('hex')}`;
    expect(publicKeyDigest(Buffer.from(HEX, 'hex'))).toBe(expected);
    expect(() => publicKeyDigest(new Uint8Array(33))).toThrow(expect.objectContaining({ code: 'PUBLIC_KEY_INVALID' }));
  });
});
