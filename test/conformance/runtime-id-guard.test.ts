/**
 * Runtimes are plug-ins (spec/adapters-and-safety.md): no engine, evidence, publishing, shell or
 * UI module branches on a built-in runtime id or imports a built-in adapter. Only the adapters
 * themselves, the frozen executor-file format, the demo and the registry that wires them may.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/run-cli';
import { runtimeIdFindings, scanFolders } from './runtime-id-guard';

/** Where runtime ids belong: each adapter, the executor-file schema (claude | codex), the simulated demo runtimes. */
const ALLOWED = ['main/runtimes', 'shared/executors', 'main/demo'];
/** Every other folder of main/ and shared/, plus preload/ and renderer/src. */
const GUARDED = [
  ...['main', 'shared'].flatMap((top) =>
    readdirSync(path.join(REPO_ROOT, top), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `${top}/${entry.name}`),
  ),
  'preload',
  'renderer/src',
].filter((folder) => !ALLOWED.includes(folder));

describe('no engine or UI module knows a built-in runtime', () => {
  it('guards the orchestrator, evidence, publishing, landing, shells and UI', () => {
    expect(GUARDED).toEqual(
      expect.arrayContaining(['main/orchestrator', 'main/evidence', 'main/publish', 'main/landing', 'shared/fork', 'shared/publish', 'renderer/src', 'main/mission-control']),
    );
  });

  it('finds no comparison, switch, lookup or import of claude/codex there', () => {
    expect(scanFolders(REPO_ROOT, GUARDED)).toEqual([]);
  });

  it.each([
    ["if (branch.runtime === 'claude') return;", 'compares against a runtime id'],
    ['const local = "codex" != runtime;', 'compares against a runtime id'],
    ['{#if row.runtime === `codex`}', 'compares against a runtime id'],
    ["    case 'claude':", 'switches on a runtime id'],
    ["if (['claude', 'codex'].includes(id)) {", 'looks a runtime id up in a list'],
    ["import { claudeAdapter } from '../runtimes/claude/adapter';", 'imports a built-in adapter'],
    ["const m = await import('../../main/runtimes/codex/parse-output');", 'imports a built-in adapter'],
  ])('would catch %j', (source, rule) => {
    expect(runtimeIdFindings('x.ts', source)).toEqual([{ file: 'x.ts', line: 1, rule, text: source.trim() }]);
  });

  it.each([
    "profiles: [{ runtime: 'claude' }],",
    "const INSTRUCTION_PATHS = ['AGENTS.md', 'CLAUDE.md', '.claude', '.codex'];",
    "import { adapterFor } from '../runtimes/registry';",
    "if (runtime === 'claude-sonnet') return;",
  ])('lets %j through', (source) => {
    expect(runtimeIdFindings('x.ts', source)).toEqual([]);
  });
});
