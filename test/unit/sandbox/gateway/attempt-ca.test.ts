import { createPrivateKey, X509Certificate } from 'node:crypto';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAttemptCa, issueLeaf, LEAF_VALIDITY_MS, loadAttemptCa } from '../../../../main/sandbox/gateway/attempt-ca';
import { useTempDirs } from '../../../support/temp-dir';

const tempDir = useTempDirs();
const HOSTS = ['api.openai.com', 'chatgpt.com'];

describe('attempt CA', () => {
  it('writes a CA certificate and a 0600 key, and issues a leaf for a host that chains to it', async () => {
    const dir = path.join(tempDir(), 'gateway-ca');
    const files = await createAttemptCa(dir, HOSTS);
    expect(statSync(files.key_file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(files.key_file)).mode & 0o777).toBe(0o700);
    // The certificate's folder is what a sandbox may be given: the key is never under it.
    expect(path.relative(path.dirname(files.cert_file), files.key_file).startsWith('..')).toBe(true);
    const caCert = new X509Certificate(readFileSync(files.cert_file));
    expect(caCert.ca).toBe(true);
    expect(caCert.checkPrivateKey(createPrivateKey(readFileSync(files.key_file)))).toBe(true);

    const now = new Date();
    const leaf = await issueLeaf(await loadAttemptCa(files), 'api.openai.com', now);
    const leafCert = new X509Certificate(leaf.certPem);
    expect(leafCert.ca).toBe(false);
    expect(leafCert.subjectAltName).toBe('DNS:api.openai.com');
    expect(leafCert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    expect(leafCert.checkIssued(caCert)).toBe(true);
    expect(leafCert.verify(caCert.publicKey)).toBe(true);
    expect(leafCert.checkHost('api.openai.com')).toBe('api.openai.com');
    expect(leafCert.checkHost('chatgpt.com')).toBeUndefined();
    expect(new Date(leafCert.validTo).getTime()).toBeLessThanOrEqual(now.getTime() + LEAF_VALIDITY_MS);
  });

  it('issues certificates in strict DER, every time (a serial with a needless leading zero was refused once in about 256)', async () => {
    const ca = await loadAttemptCa(await createAttemptCa(tempDir(), ['api.openai.com']));
    for (let i = 0; i < 600; i += 1) {
      const leaf = new X509Certificate((await issueLeaf(ca, 'api.openai.com')).certPem);
      expect(leaf.serialNumber, leaf.serialNumber).toMatch(/^[4-7][0-9A-F]{31}$/);
    }
  });

  it('gives two attempts different CAs (keys, names and serials)', async () => {
    const first = await createAttemptCa(tempDir(), HOSTS);
    const second = await createAttemptCa(tempDir(), HOSTS);
    const [a, b] = [first, second].map((files) => new X509Certificate(readFileSync(files.cert_file)));
    expect(a?.publicKey.export({ format: 'der', type: 'spki' })).not.toEqual(b?.publicKey.export({ format: 'der', type: 'spki' }));
    expect(a?.subject).not.toBe(b?.subject);
    expect(a?.serialNumber).not.toBe(b?.serialNumber);
    expect(readFileSync(first.key_file, 'utf8')).not.toBe(readFileSync(second.key_file, 'utf8'));
  });

  it('never reuses a folder that already holds a CA', async () => {
    const dir = tempDir();
    await createAttemptCa(dir, HOSTS);
    await expect(createAttemptCa(dir, HOSTS)).rejects.toMatchObject({ code: 'EEXIST' });
  });

  it('refuses to load a key file others can read', async () => {
    const files = await createAttemptCa(tempDir(), HOSTS);
    chmodSync(files.key_file, 0o644);
    await expect(loadAttemptCa(files)).rejects.toMatchObject({ code: 'GATEWAY_CA_INVALID' });
  });

  it('refuses a key file that is not the CA key PEM', async () => {
    const files = await createAttemptCa(tempDir(), HOSTS);
    writeFileSync(files.key_file, 'not a key\n');
    await expect(loadAttemptCa(files)).rejects.toMatchObject({ code: 'GATEWAY_CA_INVALID' });
  });

  it('needs at least one host', async () => {
    await expect(createAttemptCa(tempDir(), [])).rejects.toMatchObject({ code: 'GATEWAY_CA_INVALID' });
  });
});
