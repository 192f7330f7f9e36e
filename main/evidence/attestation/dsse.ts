// @sigstore/core (sigstore-js, maintained by the Sigstore project) supplies DSSE's pre-authentication
// encoding, so Citadel's signed bytes are the ones other DSSE implementations compute; signing and
// verifying stay with node:crypto, which already holds the issuer's ed25519 key. Only its DSSE module
// is imported: the package index pulls in its X.509 and ASN.1 code (~55 KB in each bundle).
import { preAuthEncoding as pae } from '@sigstore/core/dist/dsse.js';
import { sign, verify, type KeyObject } from 'node:crypto';
import { canonicalJson } from '../../../shared/canonical-json';
import { DSSE_PAYLOAD_TYPE, type CitadelStatement, type DsseEnvelope } from '../../../shared/publish/attestation';

/** `DSSEv1 <len(type)> <type> <len(body)> <body>`: the bytes a DSSE signature covers. */
export function preAuthEncoding(payloadType: string, payload: Buffer): Buffer {
  return pae(payloadType, payload);
}

/**
 * A statement in a DSSE envelope signed by `privateKey`. The payload is the statement's RFC 8785
 * text, so the same statement always gives the same envelope (ed25519 signatures are deterministic).
 */
export function signStatement(statement: CitadelStatement, privateKey: KeyObject, keyid: string): DsseEnvelope {
  const payload = Buffer.from(canonicalJson(statement), 'utf8');
  const sig = sign(null, preAuthEncoding(DSSE_PAYLOAD_TYPE, payload), privateKey);
  return { payload: payload.toString('base64'), payloadType: DSSE_PAYLOAD_TYPE, signatures: [{ keyid, sig: sig.toString('base64') }] };
}

/** Whether `sig` (base64) is `publicKey`'s ed25519 signature over the envelope's PAE. Never throws. */
export function signatureHolds(envelope: Pick<DsseEnvelope, 'payloadType'>, payload: Buffer, sig: string, publicKey: KeyObject): boolean {
  try {
    return verify(null, preAuthEncoding(envelope.payloadType, payload), publicKey, Buffer.from(sig, 'base64'));
  } catch {
    return false;
  }
}
