/**
 * The sandboxed preload (bundled as CommonJS): exposes the typed bridge and nothing else; the page
 * never sees ipcRenderer or a generic invoke.
 */
import { contextBridge, ipcRenderer } from 'electron';
import { createBridge } from './bridge';

contextBridge.exposeInMainWorld('citadel', createBridge(ipcRenderer));
