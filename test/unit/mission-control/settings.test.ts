import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ForkHarness } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';
import { serviceOver } from '../../support/service-context';

const tempDir = useTempDirs();

describe('Mission Control settings (file key store)', () => {
  it('reads the signing key without creating it; the first signing creates it, as the CLI does', async () => {
    const h = new ForkHarness(tempDir('citadel-settings-'));
    const { ctx, service } = await serviceOver(h);
    const keyFile = path.join(ctx.root.keysDir(), `${h.issuer}.key`);

    for (let i = 0; i < 2; i += 1) {
      expect(await service.handle('settings', {})).toMatchObject({ ok: true, value: { signing_key: 'not_created', public_key_fingerprint: null, key_store_ready: true } });
    }
    expect(existsSync(keyFile)).toBe(false);

    // What `fork start` does before it binds the fork's signer.
    const key = await ctx.keys.loadOrCreateSigningKey(h.issuer);
    const settings = await service.handle('settings', {});
    expect(settings).toMatchObject({ ok: true, value: { signing_key: 'present', key_store_ready: true, key_store_problem: null } });
    expect(settings.ok && key.publicKeyDigest.startsWith(`sha256:${settings.value.public_key_fingerprint}`)).toBe(true);
  });

  it('reports a key it cannot read as unreadable, with the code, and never replaces it', async () => {
    const h = new ForkHarness(tempDir('citadel-settings-'));
    const { ctx, service } = await serviceOver(h);
    await ctx.keys.loadOrCreateSigningKey(h.issuer);
    const keyFile = path.join(ctx.root.keysDir(), `${h.issuer}.key`);
    writeFileSync(keyFile, 'not a key\n');
    chmodSync(keyFile, 0o600);
    const settings = await service.handle('settings', {});
    expect(settings).toMatchObject({ ok: true, value: { signing_key: 'unreadable', public_key_fingerprint: null, key_store_ready: false } });
    expect(settings.ok && settings.value.key_store_problem).toMatch(/^SIGNING_KEY_CORRUPT: /);
    expect(readFileSync(keyFile, 'utf8')).toBe('not a key\n');
  });
});
