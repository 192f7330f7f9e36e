import { randomBytes, webcrypto } from 'node:crypto';
import { lstat, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
// PKI.js (PeculiarVentures, already in the lock through electron-builder): X.509 over WebCrypto,
// with no OpenSSL binary to run and no global Reflect polyfill (@peculiar/x509 2.x needs one).
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { CitadelError } from '../../../shared/errors';

/** Where an attempt's CA lives on the host, as `GatewaySpec.ca` names it. */
export interface AttemptCaFiles {
  readonly cert_file: string;
  readonly key_file: string;
}

/** The CA loaded in the gateway: its certificate and a non-extractable signing key. */
export interface AttemptCa {
  readonly certificate: pkijs.Certificate;
  readonly certPem: string;
  readonly privateKey: webcrypto.CryptoKey;
  readonly notAfter: Date;
}

export interface IssuedLeaf {
  readonly certPem: string;
  readonly keyPem: string;
  readonly notAfter: Date;
}

const ENGINE = new pkijs.CryptoEngine({ name: 'citadel-attempt-ca', crypto: webcrypto as unknown as Crypto });
const EC_P256 = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const HOUR_MS = 3_600_000;
/** An attempt runs for hours at most; a week covers a resumed one without outliving it by much. */
export const CA_VALIDITY_MS = 7 * 24 * HOUR_MS;
/** Leaves are re-issued well before this (see tls-interception.ts): short-lived, never written to disk. */
export const LEAF_VALIDITY_MS = 24 * HOUR_MS;
/** Tolerates a sandbox clock a little behind the host's. */
const BACKDATE_MS = HOUR_MS;

const OID = {
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  subjectAltName: '2.5.29.17',
  nameConstraints: '2.5.29.30',
  serverAuth: '1.3.6.1.5.5.7.3.1',
} as const;

/**
 * Makes a new CA for one attempt under `dir`: `public/ca-cert.pem` (the only file, and folder, a
 * sandbox may be given) and `private/ca-key.pem` (0600 in a 0700 folder, read only by the gateway
 * on the host), so binding the certificate's folder can never expose the key. The CA is
 * name-constrained to `hosts`: even a leaked key could not vouch for any other name. Neither file
 * may exist yet: a CA is never reused across attempts.
 */
export async function createAttemptCa(dir: string, hosts: readonly string[], now: Date = new Date()): Promise<AttemptCaFiles> {
  if (hosts.length === 0) throw new CitadelError('GATEWAY_CA_INVALID', 'an attempt CA needs at least one host to vouch for');
  const publicDir = path.join(dir, 'public');
  const privateDir = path.join(dir, 'private');
  await mkdir(publicDir, { recursive: true, mode: 0o755 });
  await mkdir(privateDir, { recursive: true, mode: 0o700 });
  const keys = (await webcrypto.subtle.generateKey(EC_P256, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const certificate = new pkijs.Certificate();
  const name = distinguishedName(`Citadel attempt CA ${randomBytes(8).toString('hex')}`);
  certificate.issuer = name;
  certificate.subject = name;
  setValidity(certificate, now, new Date(now.getTime() + CA_VALIDITY_MS));
  certificate.extensions = [
    extension(OID.basicConstraints, true, new pkijs.BasicConstraints({ cA: true, pathLenConstraint: 0 })),
    keyUsage(0x06, 1), // keyCertSign | cRLSign
    extension(OID.nameConstraints, true, new pkijs.NameConstraints({ permittedSubtrees: hosts.map((host) => new pkijs.GeneralSubtree({ base: dnsName(host) })) })),
  ];
  await signWith(certificate, keys.publicKey, keys.privateKey);
  const files = { cert_file: path.join(publicDir, 'ca-cert.pem'), key_file: path.join(privateDir, 'ca-key.pem') };
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  // 'wx': never through an existing file or link; the key is 0600 from its first byte.
  await writeFile(files.key_file, pem('PRIVATE KEY', pkcs8), { mode: 0o600, flag: 'wx' });
  await writeFile(files.cert_file, pem('CERTIFICATE', certificate.toSchema().toBER(false)), { mode: 0o644, flag: 'wx' });
  return files;
}

/** Reads an attempt's CA back; refuses a key file that is not a private regular file. */
export async function loadAttemptCa(files: AttemptCaFiles): Promise<AttemptCa> {
  const info = await lstat(files.key_file).catch((cause: unknown) => {
    throw new CitadelError('GATEWAY_CA_INVALID', `the attempt CA key ${files.key_file} cannot be read`, { cause });
  });
  if (!info.isFile() || (info.mode & 0o077) !== 0 || (typeof process.getuid === 'function' && info.uid !== process.getuid())) {
    throw new CitadelError('GATEWAY_CA_INVALID', `the attempt CA key ${files.key_file} must be a regular file of this user with mode 0600`);
  }
  try {
    const certPem = await readFile(files.cert_file, 'utf8');
    const certificate = pkijs.Certificate.fromBER(fromPem('CERTIFICATE', certPem));
    const der = fromPem('PRIVATE KEY', await readFile(files.key_file, 'utf8'));
    const privateKey = await webcrypto.subtle.importKey('pkcs8', der, EC_P256, false, ['sign']);
    return { certificate, certPem, privateKey, notAfter: certificate.notAfter.value };
  } catch (cause) {
    throw new CitadelError('GATEWAY_CA_INVALID', `the attempt CA in ${files.cert_file} / ${files.key_file} does not load`, { cause });
  }
}

/** A server certificate for `host` (SAN = host, serverAuth), valid a day or until the CA ends. */
export async function issueLeaf(ca: AttemptCa, host: string, now: Date = new Date()): Promise<IssuedLeaf> {
  const keys = (await webcrypto.subtle.generateKey(EC_P256, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const certificate = new pkijs.Certificate();
  certificate.issuer = ca.certificate.subject;
  certificate.subject = distinguishedName(host);
  const notAfter = new Date(Math.min(now.getTime() + LEAF_VALIDITY_MS, ca.notAfter.getTime()));
  setValidity(certificate, now, notAfter);
  certificate.extensions = [
    extension(OID.basicConstraints, true, new pkijs.BasicConstraints({ cA: false })),
    keyUsage(0x80, 7), // digitalSignature (ECDHE key exchange signs with it)
    extension(OID.extKeyUsage, false, new pkijs.ExtKeyUsage({ keyPurposes: [OID.serverAuth] })),
    extension(OID.subjectAltName, false, new pkijs.AltName({ altNames: [dnsName(host)] })),
  ];
  await signWith(certificate, keys.publicKey, ca.privateKey);
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { certPem: pem('CERTIFICATE', certificate.toSchema().toBER(false)), keyPem: pem('PRIVATE KEY', pkcs8), notAfter };
}

async function signWith(certificate: pkijs.Certificate, publicKey: webcrypto.CryptoKey, signer: webcrypto.CryptoKey): Promise<void> {
  certificate.version = 2;
  // 126 random bits, top bit clear and the next one set: a positive INTEGER no two certificates
  // share, whose first byte is never 0 (DER forbids a needless leading zero: OpenSSL and rustls
  // refuse it as "illegal padding", once in about 256 certificates before this).
  const serial = randomBytes(16);
  serial[0] = ((serial[0] ?? 0) & 0x3f) | 0x40;
  certificate.serialNumber = new asn1js.Integer({ valueHex: serial });
  await certificate.subjectPublicKeyInfo.importKey(publicKey as unknown as CryptoKey, ENGINE);
  await certificate.sign(signer as unknown as CryptoKey, 'SHA-256', ENGINE);
}

function setValidity(certificate: pkijs.Certificate, now: Date, notAfter: Date): void {
  certificate.notBefore.value = new Date(now.getTime() - BACKDATE_MS);
  certificate.notAfter.value = notAfter;
}

function distinguishedName(commonName: string): pkijs.RelativeDistinguishedNames {
  return new pkijs.RelativeDistinguishedNames({
    typesAndValues: [
      new pkijs.AttributeTypeAndValue({ type: OID.organization, value: new asn1js.Utf8String({ value: 'Citadel' }) }),
      new pkijs.AttributeTypeAndValue({ type: OID.commonName, value: new asn1js.Utf8String({ value: commonName }) }),
    ],
  });
}

function dnsName(host: string): pkijs.GeneralName {
  return new pkijs.GeneralName({ type: 2, value: host });
}

function extension(extnID: string, critical: boolean, value: { toSchema(): asn1js.BaseBlock }): pkijs.Extension {
  return new pkijs.Extension({ extnID, critical, extnValue: value.toSchema().toBER(false), parsedValue: value });
}

function keyUsage(bits: number, unusedBits: number): pkijs.Extension {
  const value = new asn1js.BitString({ valueHex: new Uint8Array([bits]).buffer, unusedBits });
  return new pkijs.Extension({ extnID: OID.keyUsage, critical: true, extnValue: value.toBER(false) });
}

function pem(label: string, der: ArrayBuffer): string {
  const base64 = Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n').replace(/\n$/, '');
  return `-----BEGIN ${label}-----\n${base64}\n-----END ${label}-----\n`;
}

function fromPem(label: string, text: string): ArrayBuffer {
  const match = new RegExp(`-----BEGIN ${label}-----([A-Za-z0-9+/=\\s]+)-----END ${label}-----`).exec(text);
  if (match === null) throw new Error(`no ${label} PEM block`);
  const der = Buffer.from((match[1] ?? '').replace(/\s+/g, ''), 'base64');
  return der.buffer.slice(der.byteOffset, der.byteOffset + der.byteLength);
}
