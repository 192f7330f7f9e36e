/**
 * Mission Control's Electron entry. Thin on purpose: every decision lives in a module that can be
 * tested without the Electron binary; this file only wires them to Electron.
 */
import { app, BrowserWindow, dialog, ipcMain, Notification, session, shell } from 'electron';
import { fileURLToPath } from 'node:url';
import { openOrchestratorContext } from '../host/open-context';
import { branchWorktree } from '../orchestrator';
import { createMissionControlService, type MissionControlService } from '../mission-control/service';
import { appDialogHandlers } from './app-dialogs';
import { APP_ENTRY_URL } from './app-origin';
import { registerAppScheme, serveRenderer } from './app-protocol';
import { forwardEvents } from './event-forwarding';
import { notifyForkOutcomes } from './fork-notifications';
import { hardenContents } from './harden-contents';
import { hardenSession } from './harden-session';
import { nativeDialogs } from './native-dialogs';
import { openTerminalIn, worktreeHandlers } from './open-worktree';
import { registerAppIpcHandlers, registerIpcHandlers } from './ipc-handlers';
import { MIN_NODE_MAJOR, resolveSupervisorNode, supervisorScriptPath } from './supervisor-node';
import { createTrustedSenders } from './trusted-senders';
import { secureWebPreferences } from './web-preferences';

const PRELOAD = fileURLToPath(new URL('../preload/index.cjs', import.meta.url));
const RENDERER_DIR = fileURLToPath(new URL('../renderer/', import.meta.url));

registerAppScheme();
app.enableSandbox();
app.on('web-contents-created', (_event, contents) => hardenContents(contents));

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app
    .whenReady()
    .then(start)
    .catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)));
}

async function start(): Promise<void> {
  hardenSession(session.defaultSession);
  serveRenderer(RENDERER_DIR);

  const node = await resolveSupervisorNode({ env: process.env, appExecPath: process.execPath });
  if (!node.ok) {
    return fail(
      `Citadel runs each coding agent under a supervisor that needs Node.js ${MIN_NODE_MAJOR} or later: ${node.problem}. ` +
        'Install Node.js, or set CITADEL_NODE to its absolute path.',
    );
  }
  const ctx = await openOrchestratorContext({ supervisorScript: supervisorScriptPath(app.getAppPath()) });
  const service = createMissionControlService({ ...ctx, nodeExecPath: node.execPath });

  const trusted = createTrustedSenders();
  registerIpcHandlers(ipcMain, service, trusted.isTrusted);
  const worktrees = worktreeHandlers((forkId, branchId) => branchWorktree(ctx, forkId, branchId), { openPath: (dir) => shell.openPath(dir), openTerminal: openTerminalIn });
  registerAppIpcHandlers(ipcMain, { ...appDialogHandlers(nativeDialogs, app.getPath('documents')), ...worktrees }, trusted.isTrusted);
  if (Notification.isSupported()) notifyForkOutcomes(service, (notice) => new Notification(notice).show());

  const showWindow = () => {
    if (!focusExistingWindow()) openWindow(service, trusted);
  };
  showWindow();
  app.on('second-instance', showWindow);
  app.on('activate', showWindow);
  // macOS apps stay running without windows; elsewhere closing the last window quits.
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
}

function openWindow(service: MissionControlService, trusted: ReturnType<typeof createTrustedSenders>): void {
  const window = new BrowserWindow({
    width: 1280,
    height: 860,
    minWidth: 900,
    minHeight: 600,
    show: false,
    title: 'Citadel Mission Control',
    webPreferences: secureWebPreferences(PRELOAD),
  });
  trusted.trust(window.webContents);
  forwardEvents(service, window.webContents);
  window.once('ready-to-show', () => window.show());
  void window.loadURL(APP_ENTRY_URL);
}

function focusExistingWindow(): boolean {
  const [window] = BrowserWindow.getAllWindows();
  if (window === undefined) return false;
  if (window.isMinimized()) window.restore();
  window.focus();
  return true;
}

function fail(message: string): void {
  dialog.showErrorBox('Citadel Mission Control cannot start', message);
  app.quit();
}
