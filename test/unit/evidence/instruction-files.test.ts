/**
 * Instruction-file evidence is read from a tree the agent wrote: a FIFO, a device-like entry or a
 * symlink must never be opened, followed or waited on, and an oversized file gets no digest.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collectInstructionFiles } from '../../../main/evidence/instruction-files';
import { sha256Digest } from '../../../shared/digest';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

describe('collectInstructionFiles', () => {
  it('digests regular files and records FIFOs, symlinks and oversized files without reading them', async () => {
    const worktree = tempDir('citadel-instructions-');
    writeFileSync(path.join(worktree, 'CLAUDE.md'), 'be careful\n');
    execFileSync('mkfifo', [path.join(worktree, 'AGENTS.md')]);
    symlinkSync('/etc/passwd', path.join(worktree, 'CLAUDE.local.md'));
    mkdirSync(path.join(worktree, '.claude'));
    const big = path.join(worktree, '.claude', 'huge.md');
    writeFileSync(big, '');
    truncateSync(big, 16 * 1024 * 1024 + 1);
    execFileSync('mkfifo', [path.join(worktree, '.claude', 'pipe.md')]);

    const files = await collectInstructionFiles(worktree);

    expect(files).toEqual([
      { path: 'AGENTS.md', kind: 'other', digest: null },
      { path: 'CLAUDE.md', kind: 'file', digest: sha256Digest(Buffer.from('be careful\n')) },
      { path: 'CLAUDE.local.md', kind: 'other', digest: null },
      { path: '.claude', kind: 'directory', digest: null },
      { path: '.claude/huge.md', kind: 'file', digest: null },
      { path: '.claude/pipe.md', kind: 'other', digest: null },
    ]);
  });
});
