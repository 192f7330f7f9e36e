import type { AsyncEntry, EntryOptions } from '@napi-rs/keyring';
import { CitadelError } from '../../../shared/errors';
import type { KeyBackend } from './key-backend';
import { probeSessionBus } from './session-bus-probe';

/** The keychain service of every Citadel key; the account is the issuer id (decisions D9). */
export const KEYCHAIN_SERVICE = 'citadel';

// Without this pin the library silently falls back to the Linux kernel keyring (measured).
const ENTRY_OPTIONS: EntryOptions = { linux: { store: 'secret-service' } };

// check() looks this account up: the issuer grammar cannot produce it (it starts with a dot).
const CHECK_ACCOUNT = '.citadel-status-check';
// The imported public keys: one entry, in an account no issuer id can name either.
const TRUSTED_ACCOUNT = '.citadel-trusted-keys';

/**
 * Private keys in the OS keychain (Secret Service on Linux, Keychain on macOS, Credential Manager
 * on Windows). Every call has a deadline: a dying provider was measured hanging for over a minute.
 * A Secret Service that was never unlocked reads as "no key" and then refuses the write
 * (measured), so it surfaces as KEYCHAIN_UNAVAILABLE on creation, never as a replaced key.
 */
export function osKeychainBackend(timeoutMs: number): KeyBackend {
  const call = async <T>(operation: string, account: string, run: (entry: AsyncEntry, signal: AbortSignal) => Promise<T>): Promise<T> => {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new Error(`no answer within ${timeoutMs} ms`));
      }, timeoutMs);
    });
    const attempt = async (): Promise<T> => {
      if (process.platform === 'linux') await probeSessionBus(process.env.DBUS_SESSION_BUS_ADDRESS, timeoutMs);
      // Loaded on first use: commands that never touch a key run without the native binding, and a
      // binding that cannot load is KEYCHAIN_UNAVAILABLE rather than a crash at start-up.
      const { AsyncEntry: Entry } = await import('@napi-rs/keyring');
      // The constructor opens a Secret Service session synchronously; it gave up after 2 s on a
      // stopped provider (measured), and the probe has just seen the bus itself answer.
      return run(new Entry(KEYCHAIN_SERVICE, account, ENTRY_OPTIONS), controller.signal);
    };
    try {
      return await Promise.race([attempt(), deadline]);
    } catch (error) {
      throw unavailable(operation, error instanceof Error ? error.message : String(error));
    } finally {
      clearTimeout(timer);
    }
  };
  const read = (issuerId: string): Promise<string | null> => call('read', issuerId, (entry, signal) => entry.getPassword(signal));

  return {
    description: { kind: 'os-keychain', weaker: false },
    read,
    async create(issuerId, text) {
      const existing = await read(issuerId);
      if (existing !== null) return existing;
      await call('write', issuerId, (entry, signal) => entry.setPassword(text, signal));
      // Read back: the keychain's copy is the key, whatever a concurrent creator wrote last.
      const stored = await read(issuerId);
      if (stored === null) throw unavailable('write', 'the keychain did not keep the key');
      return stored;
    },
    async check() {
      await call('check', CHECK_ACCOUNT, (entry, signal) => entry.getPassword(signal));
    },
    readTrusted: () => call('read', TRUSTED_ACCOUNT, (entry, signal) => entry.getPassword(signal)),
    async writeTrusted(text) {
      await call('write', TRUSTED_ACCOUNT, (entry, signal) => entry.setPassword(text, signal));
    },
  };
}

function unavailable(operation: string, reason: string): CitadelError {
  const hint = 'start the OS keychain (Secret Service on Linux), or opt in to the weaker file key store with CITADEL_KEYSTORE=file';
  return new CitadelError('KEYCHAIN_UNAVAILABLE', `the OS keychain is unavailable (${operation}: ${reason}); ${hint}`, {
    details: { operation, reason },
  });
}
