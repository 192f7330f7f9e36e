import type { KeychainSource } from '../../main/runtimes/credentials/keychain';

/** A Keychain holding items by `service/account`, counting secret reads (a real read may prompt the operator). */
export function fakeKeychain(items: Record<string, string>): KeychainSource & { items: Record<string, string>; reads: number } {
  const keychain = {
    items,
    reads: 0,
    has: (service: string, account: string) => Promise.resolve(Object.hasOwn(items, `${service}/${account}`)),
    read: (service: string, account: string) => {
      keychain.reads += 1;
      return Promise.resolve(items[`${service}/${account}`] ?? null);
    },
    write: (service: string, account: string, secret: string) => {
      items[`${service}/${account}`] = secret;
      return Promise.resolve();
    },
  };
  return keychain;
}
