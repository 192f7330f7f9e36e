import { describe, expect, it } from 'vitest';
import { codexActivity } from '../../../main/runtimes/codex/parse-events';
import { RuntimeActivitySchema } from '../../../shared/fork/events';
import { recordedRun } from './recorded-run';

/** Every line of a recorded run as the live view reads it, checked against the shared schema. */
function activities(name: string) {
  return recordedRun('codex', name)
    .stdout.split('\n')
    .map((line) => codexActivity(line))
    .filter((activity) => activity !== null)
    .map((activity) => RuntimeActivitySchema.parse(activity));
}

describe('Codex JSONL lines as they arrive (issue 14)', () => {
  it('a shell run: session, turn, the command without its shell wrapper, its exit, the model message and the token usage', () => {
    expect(activities('b1_shell')).toEqual([
      { kind: 'session', summary: 'session started' },
      { kind: 'error', summary: 'the runtime reported an error' },
      { kind: 'turn_started', summary: 'turn started' },
      { kind: 'command_started', summary: "running printf 'hello from fake model\\\\n' > hello.txt && cat hello.txt" },
      { kind: 'command_completed', summary: "ran printf 'hello from fake model\\\\n' > hello.txt && cat hello.txt (exit 0)" },
      { kind: 'item_completed', summary: 'message from the model' },
      { kind: 'turn_completed', summary: 'turn completed · 642 input, 108 output tokens' },
    ]);
  });

  it('a failed command shows its exit code; a patch shows how many files it edits; never the command output or the message text', () => {
    // As recorded in codex/b3_shell_cmd_fails.
    const failed = codexActivity(
      '{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"/bin/bash -lc \'ls /nonexistent_dir_xyz\'","aggregated_output":"ls: cannot access \'/nonexistent_dir_xyz\': No such file or directory\\n","exit_code":2,"status":"failed"}}',
    );
    expect(failed).toEqual({ kind: 'command_completed', summary: 'ran ls /nonexistent_dir_xyz (exit 2)' });
    expect(activities('b2_patch')).toContainEqual({ kind: 'item_started', summary: 'editing 2 files' });
    expect(JSON.stringify(activities('b2_patch'))).not.toContain('Done (fake model');
  });

  it('a failed turn, blank and garbled lines', () => {
    expect(activities('c2_err401').at(-1)).toEqual({ kind: 'turn_failed', summary: 'turn failed' });
    expect(codexActivity('')).toBeNull();
    expect(codexActivity('{"type":"item.completed","item":{"id":"item_9","type":"agent_mess')).toBeNull();
    expect(codexActivity('[1,2]')).toBeNull();
  });

  it('a long command is kept whole on one line: the live monitor scans it for secrets before it cuts it', () => {
    const command = `echo ${'x'.repeat(1000)}\n  && true`;
    const activity = codexActivity(JSON.stringify({ type: 'item.started', item: { id: 'item_1', type: 'command_execution', command, status: 'in_progress' } }));
    expect(activity).toEqual({ kind: 'command_started', summary: `running echo ${'x'.repeat(1000)} && true` });
  });
});
