import { isAppUrl } from './app-origin';

/** The slices of Electron's WebContents and IPC event this check reads (testable without Electron). */
export interface TrustableWebContents {
  readonly id: number;
  once(event: 'destroyed', listener: () => void): unknown;
}
export interface SenderEvent {
  readonly sender: { readonly id: number };
  readonly senderFrame: { readonly url: string; readonly parent: unknown } | null;
}

/**
 * The app's own windows. A message is trusted only when it comes from one of them AND from its
 * top frame showing the app:// origin, so an embedded or navigated-away page is refused.
 */
export function createTrustedSenders() {
  const ids = new Set<number>();
  return {
    trust(contents: TrustableWebContents): void {
      ids.add(contents.id);
      contents.once('destroyed', () => ids.delete(contents.id));
    },
    isTrusted(event: SenderEvent): boolean {
      const frame = event.senderFrame;
      return ids.has(event.sender.id) && frame !== null && frame.parent === null && isAppUrl(frame.url);
    },
  };
}
