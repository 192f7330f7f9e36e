import type { WebPreferences } from 'electron';

/**
 * The renderer's isolation (ARCHITECTURE.md baseline): sandboxed, context-isolated, no Node, web
 * security on, no <webview>, no insecure content; the preload is the only bridge.
 */
export function secureWebPreferences(preloadPath: string): WebPreferences {
  return {
    preload: preloadPath,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    navigateOnDragDrop: false,
    spellcheck: false,
  };
}
