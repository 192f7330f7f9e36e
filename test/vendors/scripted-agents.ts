import path from 'node:path';
import type { ModelTurn, ScriptContext } from '../support/model-servers/anthropic-server';
import type { LocalTurn } from '../support/model-servers/local-model-server';

/** The branch a scripted turn talks to: Citadel names each worktree folder after its branch id. */
export function branchOf(context: ScriptContext): string {
  if (context.cwd === null) throw new Error('the CLI did not tell the model its working directory');
  return path.basename(context.cwd);
}

export function cwdOf(context: ScriptContext): string {
  if (context.cwd === null) throw new Error('the CLI did not tell the model its working directory');
  return context.cwd;
}

/** What every fixing branch writes to NOTES.md, so a file in the wrong worktree names its author. */
export const notesFor = (branchId: string): string => `fixed by ${branchId}\n`;

/** Claude fixes sum.js the way an agent would: Read, Edit, Write a note, run the allowed test command, report. */
export const CLAUDE_FIX: readonly ((context: ScriptContext) => ModelTurn)[] = [
  (c) => ({ text: 'Reading the code.', tool: { name: 'Read', input: { file_path: path.join(cwdOf(c), 'src', 'sum.js') } } }),
  (c) => ({ text: 'Fixing the operator.', tool: { name: 'Edit', input: { file_path: path.join(cwdOf(c), 'src', 'sum.js'), old_string: 'return a - b;', new_string: 'return a + b;' } } }),
  (c) => ({ text: 'Writing a note.', tool: { name: 'Write', input: { file_path: path.join(cwdOf(c), 'NOTES.md'), content: notesFor(branchOf(c)) } } }),
  () => ({ text: 'Running the tests.', tool: { name: 'Bash', input: { command: 'node --test test/sum.test.js', description: 'Run the tests' } } }),
  () => ({ text: 'Fixed sum().' }),
];

/** Codex fixes sum.js with `apply_patch` run through its shell tool (no apply_patch tool is offered to --oss models), then runs the tests. */
export function codexPatchFix(branchId: string): LocalTurn[] {
  const patch = [
    "apply_patch <<'EOF'",
    '*** Begin Patch',
    '*** Update File: src/sum.js',
    '@@',
    ' export function sum(a, b) {',
    '-  return a - b;',
    '+  return a + b;',
    ' }',
    '*** Add File: NOTES.md',
    `+${notesFor(branchId).trimEnd()}`,
    '*** End Patch',
    'EOF',
  ].join('\n');
  return [{ cmd: patch }, { cmd: 'node --test test/sum.test.js' }, { text: 'Fixed sum().' }];
}

/** Codex fixes sum.js with plain shell commands. */
export function codexShellFix(branchId: string): LocalTurn[] {
  return [{ cmd: `sed -i 's/a - b/a + b/' src/sum.js && printf '${notesFor(branchId).trimEnd()}\\n' > NOTES.md` }, { text: 'Fixed sum().' }];
}

/** Claude fixes sum.js in the npm project and runs its `npm test` (allowed by the tool policy), which needs the dependency setup installed. */
export const CLAUDE_NPM_FIX: readonly ((context: ScriptContext) => ModelTurn)[] = [
  (c) => ({ text: 'Reading the code.', tool: { name: 'Read', input: { file_path: path.join(cwdOf(c), 'src', 'sum.js') } } }),
  (c) => ({ text: 'Fixing the operator.', tool: { name: 'Edit', input: { file_path: path.join(cwdOf(c), 'src', 'sum.js'), old_string: 'return a - b;', new_string: 'return a + b;' } } }),
  () => ({ text: 'Running the tests.', tool: { name: 'Bash', input: { command: 'npm test', description: 'Run the tests' } } }),
  () => ({ text: 'Fixed sum().' }),
];

/** Codex "fixes" sum.js wrongly (|a - b|, still 1 for sum(2, 3)) with a plain shell command. */
export const CODEX_WRONG_FIX: readonly LocalTurn[] = [{ cmd: "sed -i 's/return a - b;/return Math.abs(a - b);/' src/sum.js" }, { text: 'Fixed sum().' }];
