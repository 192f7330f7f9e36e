import { shell, type WebContents } from 'electron';
import { safeExternalUrl } from './external-url';

/**
 * Applied to every WebContents the app creates: it never navigates away from the app, never
 * opens a window and never attaches a <webview>. A validated https: link the operator clicked
 * opens in the system browser instead.
 */
export function hardenContents(contents: WebContents): void {
  contents.on('will-navigate', (event) => {
    event.preventDefault();
    openExternally(event.url);
  });
  contents.on('will-redirect', (event) => event.preventDefault());
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    openExternally(url);
    return { action: 'deny' };
  });
}

function openExternally(raw: string): void {
  const url = safeExternalUrl(raw);
  if (url !== null) void shell.openExternal(url);
}
