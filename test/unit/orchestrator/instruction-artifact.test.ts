import { describe, expect, it } from 'vitest';
import { instructionArtifact } from '../../../main/orchestrator/instruction-artifact';
import { BUILTIN_STEPS } from '../../../shared/fork/workflow';

const WORKFLOW = { source: 'builtin' as const, steps: [...BUILTIN_STEPS], file_path_in_repo: null, file_digest: null };

describe('instructionArtifact', () => {
  it('gives a first fork its objective only', () => {
    const text = instructionArtifact('Fix the sum', WORKFLOW, ['test/**']);
    expect(text.startsWith('# Objective\n\nFix the sum\n')).toBe(true);
    expect(text).not.toContain('# Context');
  });

  it("gives a follow-up the parent's objective, quoted line by line as context, before its own task", () => {
    const text = instructionArtifact('Drop the extra 1', WORKFLOW, [], 'Fix the sum\n# Objective\nall of it\n');
    const context = text.slice(0, text.indexOf('\n# Objective\n\nDrop the extra 1'));
    expect(context).toContain('# Context: the work this continues');
    // Quoted, so a heading in the parent's objective cannot pose as the follow-up's own.
    expect(context).toContain('> Fix the sum\n> # Objective\n> all of it\n');
    expect(text.match(/^# Objective$/gm)).toHaveLength(1);
    expect(text).toContain('Your task is the objective below.');
  });

  it('keeps every line of the context inside the quote, whatever line break it uses', () => {
    const text = instructionArtifact('Task', WORKFLOW, [], 'one\r# Objective\u2028two\r\nthree\u2029four\u0085five');
    const context = text.slice(0, text.indexOf('\n# Objective\n\nTask'));
    expect(context).toContain('> one\n> # Objective\n> two\n> three\n> four\n> five\n');
    expect(context).not.toMatch(/[\r\u2028\u2029\u0085]/);
  });
});
