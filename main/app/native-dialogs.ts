import { BrowserWindow, dialog } from 'electron';
import type { NativeDialogs } from './app-dialogs';

/** Electron's dialogs, attached to the focused app window when there is one. */
export const nativeDialogs: NativeDialogs = {
  showOpenDialog(options) {
    const parent = BrowserWindow.getFocusedWindow();
    return parent === null ? dialog.showOpenDialog(options) : dialog.showOpenDialog(parent, options);
  },
  showSaveDialog(options) {
    const parent = BrowserWindow.getFocusedWindow();
    return parent === null ? dialog.showSaveDialog(options) : dialog.showSaveDialog(parent, options);
  },
};
