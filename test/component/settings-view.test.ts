import { fireEvent, render, screen } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import type { SettingsSchema } from '../../shared/ipc/contract';
import type { z } from 'zod';
import SettingsView from '../../renderer/src/views/SettingsView.svelte';
import { fakeClient } from './support/fake-client';

const base: z.infer<typeof SettingsSchema> = {
  fork_root: '/home/alice/.citadel',
  issuer_id: 'local-alice',
  signing_key: 'not_created',
  public_key_fingerprint: null,
  public_key_pem: null,
  key_store: 'os-keychain',
  key_store_ready: true,
  key_store_problem: null,
};

const fingerprintOf = async (): Promise<HTMLElement | null> => (await screen.findByText('Public key fingerprint')).nextElementSibling as HTMLElement | null;

describe('settings view', () => {
  it('says an issuer without a key has none yet, rather than that it could not be read', async () => {
    render(SettingsView, { props: { client: fakeClient({ settings: () => ({ ok: true, value: base }) }).client } });
    expect(await fingerprintOf()).toHaveTextContent('no key yet: the first fork creates it');
  });

  it('shows the fingerprint of a present key', async () => {
    const { client } = fakeClient({ settings: () => ({ ok: true, value: { ...base, signing_key: 'present', public_key_fingerprint: '0123456789abcdef' } }) });
    render(SettingsView, { props: { client } });
    expect(await fingerprintOf()).toHaveTextContent('0123456789abcdef');
  });

  it('shows an unreadable key as unknown, with the store problem', async () => {
    const value = { ...base, signing_key: 'unreadable' as const, key_store_ready: false, key_store_problem: 'SIGNING_KEY_CORRUPT: the stored signing key is unreadable' };
    render(SettingsView, { props: { client: fakeClient({ settings: () => ({ ok: true, value }) }).client } });
    expect(await fingerprintOf()).toHaveTextContent('unknown (no key could be read)');
    expect(screen.getByText(/SIGNING_KEY_CORRUPT/)).toBeInTheDocument();
  });

  it('shows the issuer public key PEM and copies it', async () => {
    const pem = '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAexample\n-----END PUBLIC KEY-----\n';
    const written: string[] = [];
    Object.defineProperty(navigator, 'clipboard', { value: { writeText: async (text: string) => void written.push(text) }, configurable: true });
    const { client } = fakeClient({ settings: () => ({ ok: true, value: { ...base, signing_key: 'present', public_key_fingerprint: '0123456789abcdef', public_key_pem: pem } }) });
    render(SettingsView, { props: { client } });
    expect(await screen.findByLabelText('Issuer public key (PEM)')).toHaveTextContent('BEGIN PUBLIC KEY');
    await fireEvent.click(screen.getByRole('button', { name: 'Copy public key' }));
    expect(written).toEqual([pem]);
    expect(await screen.findByText('Copied.')).toBeInTheDocument();
  });

  it('offers no PEM when there is no key', async () => {
    render(SettingsView, { props: { client: fakeClient({ settings: () => ({ ok: true, value: base }) }).client } });
    await fingerprintOf();
    expect(screen.queryByRole('button', { name: 'Copy public key' })).toBeNull();
  });
});
