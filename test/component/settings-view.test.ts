import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import type { SettingsSchema } from '../../shared/ipc/contract';
import type { z } from 'zod';
import SettingsView from '../../renderer/src/views/SettingsView.svelte';
import type { Reply } from '../../shared/ipc/contract';
import type { RuntimeReadiness } from '../../shared/runtime/readiness';
import { fakeClient } from './support/fake-client';

/** A reply the test releases when it chooses, standing for a probe that takes seconds. */
function later<T>(): { promise: Promise<T>; answer: (value: T) => void } {
  let answer!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (answer = resolve));
  return { promise, answer };
}

const found = (runtime: string, version: string): RuntimeReadiness => ({
  runtime,
  executable: { name: runtime, found: true, path: `/usr/bin/${runtime}`, via: 'path', version, problem: null },
  credentials: { configured: false, sources: [] },
  credential: { kind: 'missing', label: 'none found: set the key or log in', expires_at: null, refreshable: false },
});

const base: z.infer<typeof SettingsSchema> = {
  fork_root: '/home/alice/.citadel',
  issuer_id: 'local-alice',
  signing_key: 'not_created',
  public_key_fingerprint: null,
  public_key_pem: null,
  key_store: 'os-keychain',
  key_store_ready: true,
  key_store_problem: null,
  runtimes: [],
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

  it("shows each runtime's credential source by kind, its expiry and whether it can refresh, never a value", async () => {
    const inThreeHours = new Date(Date.now() + 3 * 3_600_000 + 60_000).toISOString();
    const claude: RuntimeReadiness = {
      ...found('claude', '2.1.328 (Claude Code)'),
      credential: { kind: 'claude_login', label: 'Claude login in /home/alice/.claude/.credentials.json', expires_at: inThreeHours, refreshable: true },
    };
    const codex: RuntimeReadiness = { ...found('codex', 'codex-cli 0.169.0'), credential: { kind: 'missing', label: 'none found: set OPENAI_API_KEY or run `codex login`', expires_at: null, refreshable: false } };
    const { client } = fakeClient({
      settings: () => ({ ok: true, value: { ...base, runtimes: ['claude', 'codex'] } }),
      runtimeReadiness: ({ runtime }) => ({ ok: true, value: runtime === 'claude' ? claude : codex }),
      localProviderReadiness: () => ({ ok: true, value: { providers: [] } }),
      sandboxReadiness: () => ({ ok: true, value: { backend: 'bubblewrap', ready: true, executable: '/usr/bin/bwrap', version: 'bubblewrap 0.8.0', problem: null, install: null } }),
    });
    render(SettingsView, { props: { client } });
    const claudeCell = await screen.findByTestId('credential-claude');
    expect(claudeCell).toHaveTextContent('Claude login');
    expect(claudeCell).toHaveTextContent('expires in 3 h');
    expect(claudeCell).toHaveTextContent('refreshed on the host when it expires');
    const codexCell = await screen.findByTestId('credential-codex');
    expect(codexCell).toHaveTextContent('missing');
    expect(codexCell).toHaveTextContent('run `codex login`');
  });

  it('renders the fork root at once and fills each runtime in as its own probe answers', async () => {
    const probes = { claude: later<Reply<'runtimeReadiness'>>(), codex: later<Reply<'runtimeReadiness'>>() };
    const sandbox = later<Reply<'sandboxReadiness'>>();
    const { client, calls } = fakeClient({
      settings: () => ({ ok: true, value: { ...base, runtimes: ['claude', 'codex'] } }),
      runtimeReadiness: ({ runtime }) => probes[runtime as keyof typeof probes].promise,
      localProviderReadiness: () => ({ ok: true, value: { providers: [] } }),
      sandboxReadiness: () => sandbox.promise,
    });
    render(SettingsView, { props: { client } });
    expect(await screen.findByText('/home/alice/.citadel')).toBeInTheDocument();
    const claude = await screen.findByTestId('runtime-row-claude');
    const codex = screen.getByTestId('runtime-row-codex');
    expect(claude).toHaveTextContent('checking…');
    expect(codex).toHaveTextContent('checking…');
    expect(screen.getByText('Checking the containment backend…')).toBeInTheDocument();

    probes.codex.answer({ ok: true, value: found('codex', 'codex-cli 0.169.0') });
    await waitFor(() => expect(codex).toHaveTextContent('codex-cli 0.169.0'));
    expect(claude).toHaveTextContent('checking…');

    probes.claude.answer({ ok: false, error: { code: 'RUNTIME_UNKNOWN', message: 'no adapter' } });
    await waitFor(() => expect(claude).toHaveTextContent('Citadel has no adapter for that runtime.'));
    expect(calls.filter((c) => c.channel === 'readiness')).toEqual([]);
    sandbox.answer({ ok: true, value: { backend: 'bubblewrap', ready: true, executable: '/usr/bin/bwrap', version: 'bubblewrap 0.8.0', problem: null, install: null } });
    expect(await screen.findByTestId('sandbox-readiness')).toHaveTextContent('ready');
  });

  it('draws at once, saying what it shows and that nothing is set here, before any probe answers', async () => {
    const settings = later<Reply<'settings'>>();
    const { client } = fakeClient({
      settings: () => settings.promise,
      localProviderReadiness: () => new Promise(() => undefined),
      sandboxReadiness: () => new Promise(() => undefined),
    });
    render(SettingsView, { props: { client } });
    expect(screen.getByRole('heading', { level: 1, name: 'Settings and readiness' })).toBeInTheDocument();
    expect(screen.getByTestId('settings-intro')).toHaveTextContent('Nothing is set on this page');
    expect(screen.getByText('Checking runtimes…')).toBeInTheDocument();
    expect(screen.getByText('Checking local providers…')).toBeInTheDocument();
    settings.answer({ ok: true, value: base });
    expect(await screen.findByText('/home/alice/.citadel')).toBeInTheDocument();
  });

  it('keeps a newer check when an older probe answers late', async () => {
    const first = later<Reply<'runtimeReadiness'>>();
    let call = 0;
    const { client } = fakeClient({
      settings: () => ({ ok: true, value: { ...base, runtimes: ['codex'] } }),
      runtimeReadiness: () => (++call === 1 ? first.promise : { ok: true, value: found('codex', 'second check') }),
      localProviderReadiness: () => ({ ok: true, value: { providers: [] } }),
      sandboxReadiness: () => ({ ok: true, value: { backend: 'bubblewrap', ready: true, executable: '/usr/bin/bwrap', version: null, problem: null, install: null } }),
    });
    render(SettingsView, { props: { client } });
    await screen.findByTestId('runtime-row-codex');
    await fireEvent.click(screen.getByRole('button', { name: 'Check again' }));
    await waitFor(() => expect(screen.getByTestId('runtime-row-codex')).toHaveTextContent('second check'));
    first.answer({ ok: true, value: found('codex', 'first check') });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(screen.getByTestId('runtime-row-codex')).toHaveTextContent('second check');
  });
});
