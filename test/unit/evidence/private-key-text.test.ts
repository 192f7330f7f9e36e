import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateSigningKey, privateKeyFromText, privateKeyToText } from '../../../main/evidence/keys/private-key-text';

const WHERE = { issuerId: 'local-test', store: 'file' };
function thrown(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error');
}

describe('stored private key text', () => {
  it('is one line of base64 PKCS#8 that reads back as the same ed25519 key', () => {
    const key = generateSigningKey();
    const text = privateKeyToText(key);
    expect(text).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    expect(privateKeyFromText(text, WHERE).equals(key)).toBe(true);
  });

  it('anything else is SIGNING_KEY_CORRUPT, and the message never quotes the stored text', () => {
    const text = privateKeyToText(generateSigningKey());
    const der = Buffer.from(text, 'base64');
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');
    const bad = [
      '',
      'not base64!',
      `${text}\n`,
      ` ${text}`,
      text.slice(0, -4),
      Buffer.concat([der, Buffer.from([0])]).toString('base64'),
      Buffer.from(der.subarray(16)).toString('base64'), // the bare seed, no PKCS#8 header
      rsa,
      'A'.repeat(2000),
    ];
    for (const value of bad) {
      const error = thrown(() => privateKeyFromText(value, WHERE));
      expect(error).toMatchObject({ code: 'SIGNING_KEY_CORRUPT', details: { issuer_id: 'local-test', store: 'file' } });
      if (value.trim().length >= 16) expect(error.message).not.toContain(value.trim().slice(0, 16));
    }
  });
});
