import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { appDialogHandlers, type NativeDialogs } from '../../../main/app/app-dialogs';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

function dialogs(answers: { open?: { canceled: boolean; filePaths: string[] }; save?: { canceled: boolean; filePath?: string } }) {
  const asked: unknown[] = [];
  const native: NativeDialogs = {
    showOpenDialog: async (options) => (asked.push(options), answers.open ?? { canceled: true, filePaths: [] }),
    showSaveDialog: async (options) => (asked.push(options), answers.save ?? { canceled: true }),
  };
  return { native, asked };
}

describe('chooseRepositoryFolder', () => {
  it('asks for a directory and answers its path', async () => {
    const { native, asked } = dialogs({ open: { canceled: false, filePaths: ['/home/operator/repo'] } });
    await expect(appDialogHandlers(native, '/docs').chooseRepositoryFolder({})).resolves.toEqual({ path: '/home/operator/repo' });
    expect(asked).toEqual([expect.objectContaining({ properties: ['openDirectory'] })]);
  });

  it('answers null when the operator cancels', async () => {
    const { native } = dialogs({ open: { canceled: true, filePaths: [] } });
    await expect(appDialogHandlers(native, '/docs').chooseRepositoryFolder({})).resolves.toEqual({ path: null });
  });
});

describe('saveArtifact', () => {
  it('proposes the suggested name in the save folder and writes the text where the operator chose', async () => {
    const dir = tempDir();
    const chosen = path.join(dir, 'elsewhere.json');
    const { native, asked } = dialogs({ save: { canceled: false, filePath: chosen } });
    await expect(appDialogHandlers(native, '/home/operator/Documents').saveArtifact({ suggested_name: 'fork-x.replay.json', text: '{"a":1}\n' })).resolves.toEqual({
      saved: true,
    });
    expect(readFileSync(chosen, 'utf8')).toBe('{"a":1}\n');
    expect(asked).toEqual([expect.objectContaining({ defaultPath: path.join('/home/operator/Documents', 'fork-x.replay.json') })]);
  });

  it('writes nothing when the operator cancels', async () => {
    const { native } = dialogs({ save: { canceled: true, filePath: '' } });
    await expect(appDialogHandlers(native, tempDir()).saveArtifact({ suggested_name: 'a.json', text: 'x' })).resolves.toEqual({ saved: false });
  });

  it('reports a write into a missing folder as a typed error naming the file', async () => {
    const chosen = path.join(tempDir(), 'gone', 'a.json');
    const { native } = dialogs({ save: { canceled: false, filePath: chosen } });
    await expect(appDialogHandlers(native, '/docs').saveArtifact({ suggested_name: 'a.json', text: 'x' })).rejects.toMatchObject({
      code: 'INTERNAL_ERROR',
      details: { file: chosen, reason: 'ENOENT' },
    });
  });
});
