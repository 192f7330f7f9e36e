/** The completeness check of the conformance suite can fail, with a message that says why. */
import { describe, expect, it } from 'vitest';
import type { RuntimeAdapter } from '../../main/runtimes/adapter-contract/runtime-adapter';
import { claudeCase } from './cases/claude.case';
import { codexCase } from './cases/codex.case';
import { conformanceEchoCase } from './cases/conformance-echo.case';
import { completenessProblems } from './completeness';
import { CONFORMANCE_ADAPTERS, CONFORMANCE_CASES } from './registry';

/** Every registered case but Codex's, which these tests remove, rename or misfile. */

describe('conformance completeness check', () => {
  it('fails when a case is removed', () => {
    expect(completenessProblems(CONFORMANCE_CASES.filter((c) => c !== codexCase), CONFORMANCE_ADAPTERS)).toEqual(['runtime "codex" has no conformance case']);
  });

  it('fails when a case is renamed', () => {
    const renamed = { ...codexCase, runtime: 'codex-cli' };
    expect(completenessProblems(CONFORMANCE_CASES.map((c) => (c === codexCase ? renamed : c)), CONFORMANCE_ADAPTERS)).toEqual([
      'case "codex-cli" claims a runtime that is not registered',
      'runtime "codex" has no conformance case',
    ]);
  });

  it('fails when a case is registered for the wrong runtime', () => {
    const misfiled = { ...codexCase, runtime: 'claude' };
    expect(completenessProblems(CONFORMANCE_CASES.filter((c) => c !== claudeCase).map((c) => (c === codexCase ? misfiled : c)), CONFORMANCE_ADAPTERS)).toEqual([
      'case "claude" tests adapter "codex", not the one registered as "claude"',
      'runtime "codex" has no conformance case',
    ]);
  });

  it('fails when a runtime has two cases', () => {
    expect(completenessProblems([...CONFORMANCE_CASES, claudeCase], CONFORMANCE_ADAPTERS)).toEqual(['runtime "claude" has 2 conformance cases']);
  });

  it('fails when an adapter is registered under a key other than its id', () => {
    const adapters: Record<string, RuntimeAdapter> = { ...CONFORMANCE_ADAPTERS, echo: conformanceEchoCase.adapter };
    expect(completenessProblems(CONFORMANCE_CASES, adapters)).toEqual([
      'adapter "conformance-echo" is registered under "echo"',
      'runtime "echo" has no conformance case',
    ]);
  });

  it('fails when a new adapter is registered without a case', () => {
    const adapters = { ...CONFORMANCE_ADAPTERS, 'not-a-runtime': { ...conformanceEchoCase.adapter, id: 'not-a-runtime' } };
    expect(completenessProblems(CONFORMANCE_CASES, adapters)).toEqual(['runtime "not-a-runtime" has no conformance case']);
  });
});
