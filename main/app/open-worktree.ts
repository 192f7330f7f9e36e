import { spawn } from 'node:child_process';
import { CitadelError } from '../../shared/errors';
import type { AppChannelHandlers } from './ipc-handlers';

/** What opening a worktree needs from the desktop; tests pass fakes. */
export interface WorktreeOpeners {
  /** Electron's `shell.openPath`: resolves to '' once opened, else to the desktop's reason. */
  openPath(dir: string): Promise<string>;
  /** Starts a terminal in `dir`; rejects with a CitadelError when none can be started. */
  openTerminal(dir: string): Promise<void>;
}

/**
 * `openWorktree`: the worktree is found by main from the fork and branch ids (`find`, the door's
 * branchWorktree), then handed to the desktop. The renderer never names a path.
 */
export function worktreeHandlers(find: (forkId: string, branchId: string) => Promise<string>, openers: WorktreeOpeners): Pick<AppChannelHandlers, 'openWorktree'> {
  return {
    async openWorktree({ fork_id, branch_id, with: how }) {
      const dir = await find(fork_id, branch_id);
      if (how === 'terminal') {
        await openers.openTerminal(dir);
        return { opened: true };
      }
      const problem = await openers.openPath(dir);
      if (problem !== '') throw new CitadelError('WORKTREE_OPEN_FAILED', `the desktop could not open the worktree: ${problem}`, { details: { fork_id, branch_id, reason: problem } });
      return { opened: true };
    },
  };
}

/**
 * The platform's terminal, started in `dir` and left running on its own (Electron's `shell` opens
 * files and links, not terminals): Terminal.app on macOS, a new console on Windows, elsewhere
 * `$TERMINAL` or the Debian-family `x-terminal-emulator`.
 */
export function terminalCommand(platform: NodeJS.Platform, env: Readonly<Record<string, string | undefined>>, dir: string): { command: string; args: string[] } {
  if (platform === 'darwin') return { command: 'open', args: ['-a', 'Terminal', dir] };
  if (platform === 'win32') return { command: 'cmd.exe', args: ['/c', 'start', 'cmd.exe'] };
  return { command: env.TERMINAL?.trim() || 'x-terminal-emulator', args: [] };
}

export function openTerminalIn(dir: string, platform: NodeJS.Platform = process.platform, env: Readonly<Record<string, string | undefined>> = process.env): Promise<void> {
  const { command, args } = terminalCommand(platform, env, dir);
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: dir, detached: true, stdio: 'ignore' });
    child.once('spawn', () => {
      child.unref();
      resolve();
    });
    child.once('error', (error: NodeJS.ErrnoException) => {
      const reason = error.code ?? error.message;
      reject(
        new CitadelError('WORKTREE_OPEN_FAILED', `no terminal could be started (${command}: ${reason}); set TERMINAL to your terminal's command`, {
          details: { command, reason },
        }),
      );
    });
  });
}
