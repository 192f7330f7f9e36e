import { chmodSync, existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { openTerminalIn, terminalCommand, worktreeHandlers, type WorktreeOpeners } from '../../../main/app/open-worktree';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const FORK = 'fork-01jd0000000000000000000000';

function openers(openPathAnswer = ''): WorktreeOpeners & { openPath: ReturnType<typeof vi.fn>; openTerminal: ReturnType<typeof vi.fn> } {
  return { openPath: vi.fn(async () => openPathAnswer), openTerminal: vi.fn(async () => undefined) };
}

describe('openWorktree', () => {
  it('opens the worktree main found from the ids, in the editor or a terminal', async () => {
    const find = vi.fn(async (forkId: string, branchId: string) => `/root/.citadel/worktrees/${forkId}/${branchId}`);
    const desktop = openers();
    const { openWorktree } = worktreeHandlers(find, desktop);
    await expect(openWorktree({ fork_id: FORK, branch_id: 'branch-claude', with: 'editor' })).resolves.toEqual({ opened: true });
    await expect(openWorktree({ fork_id: FORK, branch_id: 'branch-codex', with: 'terminal' })).resolves.toEqual({ opened: true });
    expect(find.mock.calls).toEqual([[FORK, 'branch-claude'], [FORK, 'branch-codex']]);
    expect(desktop.openPath.mock.calls).toEqual([[`/root/.citadel/worktrees/${FORK}/branch-claude`]]);
    expect(desktop.openTerminal.mock.calls).toEqual([[`/root/.citadel/worktrees/${FORK}/branch-codex`]]);
  });

  it('opens nothing when the worktree cannot be found, and says why the desktop refused', async () => {
    const desktop = openers('No application is registered as handling this file');
    const missing = worktreeHandlers(async () => Promise.reject(Object.assign(new Error('gone'), { code: 'WORKTREE_MISSING' })), desktop);
    await expect(missing.openWorktree({ fork_id: FORK, branch_id: 'branch-claude', with: 'editor' })).rejects.toMatchObject({ code: 'WORKTREE_MISSING' });
    expect(desktop.openPath).not.toHaveBeenCalled();
    const refused = worktreeHandlers(async () => '/w', desktop);
    await expect(refused.openWorktree({ fork_id: FORK, branch_id: 'branch-claude', with: 'editor' })).rejects.toMatchObject({
      code: 'WORKTREE_OPEN_FAILED',
      message: expect.stringContaining('No application is registered'),
    });
  });
});

describe('openTerminalIn', () => {
  it('starts $TERMINAL in the worktree, detached', async () => {
    const dir = realpathSync(tempDir());
    const marker = path.join(tempDir(), 'cwd.txt');
    const terminal = path.join(tempDir(), 'fake-terminal');
    writeFileSync(terminal, `#!/bin/sh\npwd > ${JSON.stringify(marker)}\n`);
    chmodSync(terminal, 0o755);
    await openTerminalIn(dir, 'linux', { TERMINAL: terminal });
    await vi.waitFor(() => expect(existsSync(marker) && readFileSync(marker, 'utf8')).toBe(`${dir}\n`));
  });

  it('refuses in plain words when no terminal can be started', async () => {
    await expect(openTerminalIn(tempDir(), 'linux', { TERMINAL: path.join(tempDir(), 'no-such-terminal') })).rejects.toMatchObject({
      code: 'WORKTREE_OPEN_FAILED',
      message: expect.stringContaining('set TERMINAL'),
    });
  });

  it('names each platform\'s terminal', () => {
    expect(terminalCommand('linux', {}, '/w')).toEqual({ command: 'x-terminal-emulator', args: [] });
    expect(terminalCommand('darwin', {}, '/w')).toEqual({ command: 'open', args: ['-a', 'Terminal', '/w'] });
    expect(terminalCommand('win32', {}, '/w').command).toBe('cmd.exe');
  });
});
