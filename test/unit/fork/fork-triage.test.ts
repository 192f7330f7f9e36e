import { describe, expect, it } from 'vitest';
import type { BranchState, ForkState } from '../../../shared/fork/fork-record';
import { forkOutcomeOf, isSettled, needsDecision } from '../../../shared/fork/fork-triage';
import type { FailureCode } from '../../../shared/runtime/telemetry';

const branch = (id: string, state: BranchState, failure_code: FailureCode | null = null) => ({ branch_id: `branch-${id}`, state, failure_code });
const passed = (id: string) => branch(id, 'passed');
const verifierFailed = (id: string) => branch(id, 'failed', 'VERIFIER_FAILED');
const fork = (state: ForkState, ...branches: ReturnType<typeof branch>[]) => ({ state, branches });

describe('needs your decision', () => {
  it('is a settled fork with no selection yet and at least one comparable branch', () => {
    expect(needsDecision(fork('ready', passed('claude'), verifierFailed('codex')))).toBe(true);
    // Issue 29: a passing branch beside a stopped one can be selected (acknowledged): it waits for the operator too.
    expect(needsDecision(fork('failed', passed('claude'), branch('codex', 'failed', 'STOPPED_BY_OPERATOR')))).toBe(true);
    expect(needsDecision(fork('blocked', passed('claude'), branch('codex', 'blocked')))).toBe(true);
    // Every branch failed its verifier: still comparable, so still a decision (against the evidence).
    expect(needsDecision(fork('ready', verifierFailed('claude'), verifierFailed('codex')))).toBe(true);
  });

  it('is not a fork that runs, has been decided, or has nothing comparable', () => {
    expect(needsDecision(fork('running', passed('claude'), branch('codex', 'running')))).toBe(false);
    // The record's state says ready but a branch still runs (a retry): not settled.
    expect(needsDecision(fork('ready', passed('claude'), passed('codex'), branch('gemini', 'pending')))).toBe(false);
    expect(needsDecision(fork('selected', passed('claude'), passed('codex')))).toBe(false);
    expect(needsDecision(fork('landed', passed('claude'), passed('codex')))).toBe(false);
    expect(needsDecision(fork('failed', branch('claude', 'failed', 'RUNTIME_EXITED_NONZERO'), branch('codex', 'failed', 'STOPPED_BY_OPERATOR')))).toBe(false);
    expect(needsDecision(fork('blocked', branch('claude', 'blocked'), branch('codex', 'unknown')))).toBe(false);
    // A comparable branch beside an unknown one: selection waits for the resume that learns how it ended (selectability.ts).
    expect(needsDecision(fork('blocked', passed('claude'), branch('codex', 'unknown')))).toBe(false);
    expect(needsDecision(fork('blocked', passed('claude'), branch('codex', 'blocked')))).toBe(true);
  });

  it('is settled when no branch runs or waits to run', () => {
    expect(isSettled([passed('a'), branch('b', 'blocked'), branch('c', 'unknown'), verifierFailed('d')])).toBe(true);
    expect(isSettled([passed('a'), branch('b', 'pending')])).toBe(false);
    expect(isSettled([passed('a'), branch('b', 'running')])).toBe(false);
  });
});

describe('a settled fork’s outcome', () => {
  it('recommends the one passing branch among two or more comparable ones, as the comparison ranks them', () => {
    expect(forkOutcomeOf(fork('ready', passed('claude'), verifierFailed('codex'), verifierFailed('gemini')))).toEqual({ kind: 'recommend', branch_ids: ['branch-claude'] });
    expect(forkOutcomeOf(fork('ready', passed('claude'), passed('codex'), verifierFailed('gemini')))).toEqual({ kind: 'tie', branch_ids: ['branch-claude', 'branch-codex'] });
  });

  it('says when one branch passed with nothing to compare it with', () => {
    expect(forkOutcomeOf(fork('failed', passed('claude'), branch('codex', 'failed', 'STOPPED_BY_OPERATOR')))).toEqual({ kind: 'one_passed', branch_ids: ['branch-claude'] });
  });

  it('tells all failed (the verifier, or the run) from blocked', () => {
    expect(forkOutcomeOf(fork('ready', verifierFailed('claude'), verifierFailed('codex'), verifierFailed('gemini')))).toEqual({ kind: 'all_failed', branch_ids: [] });
    expect(forkOutcomeOf(fork('failed', verifierFailed('claude'), branch('codex', 'failed', 'RUNTIME_EXITED_NONZERO')))).toEqual({ kind: 'all_failed', branch_ids: [] });
    expect(forkOutcomeOf(fork('blocked', verifierFailed('claude'), branch('codex', 'blocked'), branch('gemini', 'unknown')))).toEqual({ kind: 'blocked', branch_ids: ['branch-codex', 'branch-gemini'] });
  });

  it('is none while a branch runs or once a selection is made', () => {
    expect(forkOutcomeOf(fork('running', passed('claude'), branch('codex', 'running')))).toBeNull();
    expect(forkOutcomeOf(fork('pending', branch('claude', 'pending'), branch('codex', 'pending')))).toBeNull();
    expect(forkOutcomeOf(fork('selected', passed('claude'), verifierFailed('codex')))).toBeNull();
    expect(forkOutcomeOf(fork('landed', passed('claude'), verifierFailed('codex')))).toBeNull();
  });
});
