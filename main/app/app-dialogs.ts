import path from 'node:path';
import { CitadelError } from '../../shared/errors';
import { writeFileDurably } from '../store/atomic-file';
import type { AppChannelHandlers } from './ipc-handlers';

/** The slice of Electron's `dialog` (bound to the focused window) these handlers use. */
export interface NativeDialogs {
  showOpenDialog(options: { title: string; properties: ['openDirectory'] }): Promise<{ canceled: boolean; filePaths: string[] }>;
  showSaveDialog(options: { title: string; defaultPath: string; filters: { name: string; extensions: string[] }[] }): Promise<{ canceled: boolean; filePath?: string }>;
}

/**
 * What the APP_CHANNELS do. The save dialog proposes the suggested name in `saveDir`; the file is
 * written where the operator chose, atomically, so a failed write never leaves half an artifact.
 */
export function appDialogHandlers(dialogs: NativeDialogs, saveDir: string): Pick<AppChannelHandlers, 'chooseRepositoryFolder' | 'saveArtifact'> {
  return {
    async chooseRepositoryFolder() {
      const result = await dialogs.showOpenDialog({ title: 'Choose the repository', properties: ['openDirectory'] });
      return { path: result.canceled ? null : (result.filePaths[0] ?? null) };
    },
    async saveArtifact({ suggested_name, text }) {
      const result = await dialogs.showSaveDialog({
        title: 'Save the exported artifact',
        defaultPath: path.join(saveDir, path.basename(suggested_name)),
        filters: [{ name: 'JSON', extensions: ['json'] }],
      });
      if (result.canceled || result.filePath === undefined || result.filePath === '') return { saved: false };
      try {
        await writeFileDurably(result.filePath, text);
      } catch (error) {
        const reason = (error as NodeJS.ErrnoException).code ?? String(error);
        throw new CitadelError('INTERNAL_ERROR', `could not write ${result.filePath} (${reason})`, { details: { file: result.filePath, reason } });
      }
      return { saved: true };
    },
  };
}
