import { execFile } from 'node:child_process';

/** One generic-password item of the macOS login Keychain, by service and account. */
export interface KeychainSource {
  /** Whether the item exists, without reading its secret (which may ask the operator to allow access). */
  has(service: string, account: string): Promise<boolean>;
  /** The item's secret, or null when there is no such item. */
  read(service: string, account: string): Promise<string | null>;
  /** Replaces (or creates) the item's secret. */
  write(service: string, account: string, secret: string): Promise<void>;
}

const SECURITY = '/usr/bin/security';
const TIMEOUT_MS = 10_000;
// `security` exits 44 when the item is not found (as Claude Code 2.1.328's own probe expects).
const ITEM_NOT_FOUND = 44;

/**
 * The macOS Keychain through Apple's `security` tool, the way Claude Code 2.1.328 reads its login
 * (`find-generic-password -a <account> -w -s <service>`, read from its bundle). UNVERIFIED on a Mac:
 * only the fake in the unit tests has run. The write passes the secret as an argument (`-w`), which
 * `ps` can show to the same user for the moment the tool runs; that user already owns the item.
 */
export function macosKeychain(): KeychainSource {
  return {
    has: (service, account) =>
      new Promise((resolve, reject) => {
        execFile(SECURITY, ['find-generic-password', '-a', account, '-s', service], { timeout: TIMEOUT_MS }, (error) => {
          if (error === null) resolve(true);
          else if (error.code === ITEM_NOT_FOUND) resolve(false);
          else reject(new Error(`the Keychain could not be searched (security exited ${String(error.code ?? error.signal)})`));
        });
      }),
    read: (service, account) =>
      new Promise((resolve, reject) => {
        execFile(SECURITY, ['find-generic-password', '-a', account, '-w', '-s', service], { timeout: TIMEOUT_MS, encoding: 'utf8' }, (error, stdout) => {
          if (error === null) resolve(stdout.trim());
          else if (error.code === ITEM_NOT_FOUND) resolve(null);
          else reject(new Error(`the Keychain could not be read (security exited ${String(error.code ?? error.signal)})`));
        });
      }),
    write: (service, account, secret) =>
      new Promise((resolve, reject) => {
        execFile(SECURITY, ['add-generic-password', '-U', '-a', account, '-s', service, '-w', secret], { timeout: TIMEOUT_MS }, (error) => {
          if (error === null) resolve();
          else reject(new Error(`the Keychain could not be written (security exited ${String(error.code ?? error.signal)})`));
        });
      }),
  };
}

/** The Keychain on macOS; none elsewhere. */
export function platformKeychain(platform: NodeJS.Platform = process.platform): KeychainSource | null {
  return platform === 'darwin' ? macosKeychain() : null;
}
