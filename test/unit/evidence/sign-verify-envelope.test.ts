import { createHash, generateKeyPairSync, type KeyObject } from 'node:crypto';
import * as noble from '@noble/ed25519';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { canonicalJson } from '../../../shared/canonical-json';
import { digestOf } from '../../../shared/digest';
import { signedEnvelopeSchema, type EnvelopeRejectionReason } from '../../../shared/evidence/signed-envelope';
import { publicKeyFromRaw, rawPublicKey } from '../../../main/evidence/signing/public-key';
import { signEnvelope } from '../../../main/evidence/signing/sign-envelope';
import { verifyEnvelope } from '../../../main/evidence/signing/verify-envelope';

// The fork receipt wrapper's signed fields (spec/executor-profiles.md), as a test receipt.
const WrapperSchema = z.strictObject({
  schema_version: z.literal(1),
  kind: z.literal('operation_fork_execution_receipt'),
  fork_id: z.string(),
  branch_id: z.string(),
  contract_digest: z.string(),
  executor_profile_digest: z.string(),
  execution_receipt_digest: z.string(),
  observation_digest: z.string(),
  issued_at: z.string(),
  issuer_id: z.string(),
});
type Wrapper = z.infer<typeof WrapperSchema>;

const WRAPPER: Wrapper = {
  schema_version: 1,
  kind: 'operation_fork_execution_receipt',
  fork_id: 'fork-01jz8y3k7q2w5e9r4t6y8u0i1o',
  branch_id: 'branch-claude-sonnet',
  contract_digest: digestOf('contract'),
  executor_profile_digest: digestOf('profile'),
  execution_receipt_digest: digestOf('receipt'),
  observation_digest: digestOf('observation'),
  issued_at: '2026-01-02T03:04:05.678Z',
  issuer_id: 'local-tester',
};

// A different value of the same JSON type for each field: the change alone must break the envelope.
function changed(value: unknown): unknown {
  return typeof value === 'number' ? value + 1 : `${String(value)}x`;
}

function keyPair(): { privateKey: KeyObject; publicKey: KeyObject } {
  return generateKeyPairSync('ed25519');
}

function expectRejected(result: ReturnType<typeof verifyEnvelope>, reason: EnvelopeRejectionReason): void {
  expect(result.ok ? 'accepted' : result.reason).toBe(reason);
}

describe('signEnvelope', () => {
  it('produces the D9 envelope: digestOf(receipt), ed25519, base64 signature over the JCS bytes', () => {
    const { privateKey, publicKey } = keyPair();
    const envelope = signEnvelope(WRAPPER, privateKey);
    expect(Object.keys(envelope).sort()).toEqual(['algorithm', 'receipt', 'receipt_digest', 'signature']);
    expect(envelope.receipt).toBe(WRAPPER);
    expect(envelope.algorithm).toBe('ed25519');
    // Independent of shared/digest.ts: SHA-256 of the canonical text, by node:crypto.
    const expectedDigest = `sha256:${createHash('sha256').update(canonicalJson(WRAPPER), 'utf8').digest('hex')}`;
    expect(envelope.receipt_digest).toBe(expectedDigest);
    expect(Buffer.from(envelope.signature, 'base64')).toHaveLength(64);

    const verified = verifyEnvelope(envelope, publicKey, WrapperSchema);
    expect(verified).toEqual({ ok: true, receipt: WRAPPER, receipt_digest: expectedDigest });
  });

  it('survives a JSON round trip with reordered keys (the signature is over canonical JSON)', () => {
    const { privateKey, publicKey } = keyPair();
    const envelope = signEnvelope(WRAPPER, privateKey);
    const reordered = Object.fromEntries(Object.entries(WRAPPER).reverse());
    const stored: unknown = JSON.parse(JSON.stringify({ ...envelope, receipt: reordered }));
    expect(verifyEnvelope(stored, publicKey, WrapperSchema).ok).toBe(true);
  });

  it('makes exactly what signedEnvelopeSchema(receiptSchema) accepts, and nothing looser passes it', () => {
    const schema = signedEnvelopeSchema(WrapperSchema);
    const envelope = signEnvelope(WRAPPER, keyPair().privateKey);
    expect(schema.parse(JSON.parse(JSON.stringify(envelope)))).toEqual(envelope);
    expect(schema.safeParse({ ...envelope, algorithm: 'ed448' }).success).toBe(false);
    expect(schema.safeParse({ ...envelope, note: 'x' }).success).toBe(false);
    expect(schema.safeParse({ ...envelope, receipt: { ...WRAPPER, extra: 1 } }).success).toBe(false);
  });

  it('refuses a key that is not an ed25519 private key', () => {
    const { publicKey } = keyPair();
    expect(() => signEnvelope(WRAPPER, publicKey)).toThrow(TypeError);
    expect(() => signEnvelope(WRAPPER, generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey)).toThrow(TypeError);
  });
});

describe('cross-verification with @noble/ed25519 (an independent implementation)', () => {
  it('node:crypto signs, noble verifies, for arbitrary JSON receipts', async () => {
    const { privateKey, publicKey } = keyPair();
    const raw = rawPublicKey(publicKey);
    await fc.assert(
      // Parsed JSON text, like every stored receipt (fast-check's own objects may lack a prototype).
      fc.asyncProperty(fc.json(), async (text) => {
        const receipt = { value: JSON.parse(text) as unknown };
        const envelope = signEnvelope(receipt, privateKey);
        const message = new TextEncoder().encode(canonicalJson(receipt));
        expect(await noble.verifyAsync(Buffer.from(envelope.signature, 'base64'), message, raw)).toBe(true);
        expect(verifyEnvelope(JSON.parse(JSON.stringify(envelope)), publicKey, z.json()).ok).toBe(true);
      }),
      { numRuns: 50 },
    );
  });

  it('noble signs, verifyEnvelope accepts, and the public key digests agree', async () => {
    const { secretKey, publicKey: nobleRaw } = await noble.keygenAsync();
    const text = canonicalJson(WRAPPER);
    const signature = await noble.signAsync(new TextEncoder().encode(text), secretKey);
    const envelope = {
      receipt: WRAPPER,
      receipt_digest: digestOf(WRAPPER),
      algorithm: 'ed25519',
      signature: Buffer.from(signature).toString('base64'),
    };
    const publicKey = publicKeyFromRaw(nobleRaw);
    expect(Buffer.from(rawPublicKey(publicKey))).toEqual(Buffer.from(nobleRaw));
    expect(verifyEnvelope(envelope, publicKey, WrapperSchema)).toMatchObject({ ok: true, receipt: WRAPPER });
  });
});

describe('verifyEnvelope rejects every tampering with the right reason', () => {
  const { privateKey, publicKey } = keyPair();
  const envelope = signEnvelope(WRAPPER, privateKey);

  for (const field of Object.keys(WRAPPER) as (keyof Wrapper)[]) {
    it(`receipt.${field} changed: digest_mismatch; with a recomputed digest: signature_invalid`, () => {
      const receipt = { ...WRAPPER, [field]: changed(WRAPPER[field]) };
      expectRejected(verifyEnvelope({ ...envelope, receipt }, publicKey, z.json()), 'digest_mismatch');
      expectRejected(verifyEnvelope({ ...envelope, receipt, receipt_digest: digestOf(receipt) }, publicKey, z.json()), 'signature_invalid');
    });
  }

  it('a receipt field added or removed: digest_mismatch', () => {
    const fewer: Partial<Wrapper> = { ...WRAPPER };
    delete fewer.issuer_id;
    expectRejected(verifyEnvelope({ ...envelope, receipt: fewer }, publicKey, z.json()), 'digest_mismatch');
    expectRejected(verifyEnvelope({ ...envelope, receipt: { ...WRAPPER, trusted: true } }, publicKey, z.json()), 'digest_mismatch');
  });

  it('receipt_digest changed: digest_mismatch', () => {
    expectRejected(verifyEnvelope({ ...envelope, receipt_digest: digestOf('other') }, publicKey, WrapperSchema), 'digest_mismatch');
  });

  it('algorithm changed: algorithm_unsupported', () => {
    for (const algorithm of ['Ed25519', 'ed448', 'none', '']) {
      expectRejected(verifyEnvelope({ ...envelope, algorithm }, publicKey, WrapperSchema), 'algorithm_unsupported');
    }
  });

  it('any bit of the signature flipped: signature_invalid', () => {
    const bytes = Buffer.from(envelope.signature, 'base64');
    for (let bit = 0; bit < bytes.length * 8; bit += 1) {
      const flipped = Buffer.from(bytes);
      flipped[bit >> 3] = (flipped[bit >> 3] ?? 0) ^ (1 << (bit & 7));
      expectRejected(verifyEnvelope({ ...envelope, signature: flipped.toString('base64') }, publicKey, WrapperSchema), 'signature_invalid');
    }
  });

  it('another signer: signature_invalid', () => {
    expectRejected(verifyEnvelope(envelope, keyPair().publicKey, WrapperSchema), 'signature_invalid');
    const resigned = signEnvelope(WRAPPER, keyPair().privateKey);
    expectRejected(verifyEnvelope(resigned, publicKey, WrapperSchema), 'signature_invalid');
  });

  it('a verifying key that is not ed25519: signature_invalid, not an exception', () => {
    const ecKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey;
    expectRejected(verifyEnvelope(envelope, ecKey, WrapperSchema), 'signature_invalid');
  });

  it('a correctly signed receipt that breaks its schema: receipt_invalid', () => {
    const odd = { ...WRAPPER, schema_version: 2 };
    expectRejected(verifyEnvelope(signEnvelope(odd, privateKey), publicKey, WrapperSchema), 'receipt_invalid');
  });

  it('anything that is not a strict envelope: envelope_malformed', () => {
    const malformed: unknown[] = [
      null,
      'envelope',
      [envelope],
      {},
      { ...envelope, extra: 1 },
      { ...envelope, receipt: undefined },
      { ...envelope, algorithm: 25519 },
      { ...envelope, receipt_digest: envelope.receipt_digest.toUpperCase() },
      { ...envelope, receipt_digest: envelope.receipt_digest.replace('sha256:', 'sha512:') },
      { ...envelope, signature: envelope.signature.replace(/==$/, '') },
      // base64url spelling: identical to base64 when the signature has no '+' or '/', so only then is it skipped.
      ...(/[+/]/.test(envelope.signature) ? [{ ...envelope, signature: Buffer.from(envelope.signature, 'base64').toString('base64url') + '==' }] : []),
      { ...envelope, signature: Buffer.from(envelope.signature, 'base64').subarray(0, 63).toString('base64') },
      { ...envelope, receipt: { ...WRAPPER, when: new Date() } },
      { ...envelope, receipt: { ...WRAPPER, big: 10n } },
    ];
    for (const input of malformed) expectRejected(verifyEnvelope(input, publicKey, WrapperSchema), 'envelope_malformed');
  });

  it('a receipt JSON cannot carry canonically is malformed before its algorithm is looked at', () => {
    // JSON.parse gives a lone surrogate; RFC 8785 has no form for it.
    const lone: unknown = JSON.parse('{"note":"\\ud800"}');
    for (const algorithm of ['ed25519', 'ed448']) expectRejected(verifyEnvelope({ ...envelope, algorithm, receipt: lone }, publicKey, z.json()), 'envelope_malformed');
    expectRejected(verifyEnvelope({ ...envelope, algorithm: 'ed448', receipt: { ...WRAPPER, when: new Date() } }, publicKey, WrapperSchema), 'envelope_malformed');
  });

  it('a non-canonical spelling of the same signature bytes: envelope_malformed', () => {
    const text = envelope.signature;
    const last = text.charAt(85);
    // The 86th character carries 2 signature bits and 4 zero bits; setting one of those keeps the bytes.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    const sloppy = `${text.slice(0, 85)}${alphabet.charAt(alphabet.indexOf(last) + 1)}==`;
    expect(Buffer.from(sloppy, 'base64')).toEqual(Buffer.from(text, 'base64'));
    expectRejected(verifyEnvelope({ ...envelope, signature: sloppy }, publicKey, WrapperSchema), 'envelope_malformed');
  });
});
