/**
 * Every landing precondition failing on its own (spec: Selection and landing): `land --confirm`
 * refuses, names each failing check with its reason, journals nothing and leaves the target as it
 * was. A token is always issued first, so each case breaks exactly one fact after the operator
 * reviewed the plan. Facts the token binds (decisions D10) also fail `confirmation_token`.
 */
import { realpathSync, renameSync, symlinkSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { land } from '../../../main/landing/land';
import { landingChecks } from '../../../main/landing/landing-checks';
import type { LandingInput } from '../../../main/landing/landing-input';
import { commitTransition } from '../../../main/store/record-transitions';
import { CitadelError } from '../../../shared/errors';
import { LANDING_CHECK_NAMES, landingToken, selectionDigest, type LandingCheck, type LandingCheckName } from '../../../shared/fork/landing';
import { useTempDirs } from '../../support/temp-dir';
import { commitFiles, git, makeRepo, writeFiles } from '../git/git-fixture';
import { fakeFork, targetState, type FakeFork } from './landing-fixture';

const tempDir = useTempDirs();

interface Case {
  readonly name: string;
  /** Breaks one fact after the token was issued; may return a different input or token to land with. */
  readonly breakIt: (fork: FakeFork, token: string) => Promise<{ input?: LandingInput; token?: string; repo?: string } | void>;
  readonly failed: readonly LandingCheckName[];
  readonly code: 'LANDING_PRECONDITION_FAILED' | 'LANDING_TOKEN_MISMATCH';
  /** The reason of the first failing check. */
  readonly reason: RegExp;
}

const cases: Case[] = [
  {
    name: 'an untracked file in the target',
    breakIt: async (fork) => writeFiles(fork.repo, { 'notes.txt': 'operator work\n' }),
    failed: ['target_clean'],
    code: 'LANDING_PRECONDITION_FAILED',
    reason: /uncommitted changes/,
  },
  {
    name: 'a staged change in the target',
    breakIt: async (fork) => {
      writeFiles(fork.repo, { 'README.md': 'changed\n' });
      git(fork.repo, 'add', 'README.md');
    },
    failed: ['target_clean'],
    code: 'LANDING_PRECONDITION_FAILED',
    reason: /uncommitted changes/,
  },
  {
    name: 'a target HEAD that moved after the token was issued',
    breakIt: async (fork) => void commitFiles(fork.repo, 'operator commit', { 'other.txt': 'x\n' }),
    failed: ['target_head_confirmed', 'confirmation_token'],
    code: 'LANDING_PRECONDITION_FAILED',
    reason: /target HEAD moved from [0-9a-f]{40} to [0-9a-f]{40}/,
  },
  {
    name: 'a detached target HEAD (same commit)',
    breakIt: async (fork) => void git(fork.repo, 'checkout', '--quiet', '--detach'),
    failed: ['target_on_branch'],
    code: 'LANDING_PRECONDITION_FAILED',
    reason: /detached/,
  },
  {
    name: 'a stale selection (the fork changed after it was selected)',
    breakIt: async (fork) => void (await commitTransition(fork.ctx, await fork.record(), {})),
    // The token binds the revision the selection is current at, not fork.json's counter: only the selection check moves.
    failed: ['selection_current'],
    code: 'LANDING_PRECONDITION_FAILED',
    reason: /made at revision 0 and is current only at revision 1; the fork is now at revision 2/,
  },
  {
    name: 'a deleted selected branch',
    breakIt: async (fork) => void git(fork.repo, 'branch', '--quiet', '-D', fork.gitBranch),
    failed: ['selected_branch_exists', 'confirmation_token'],
    code: 'LANDING_PRECONDITION_FAILED',
    reason: /no longer exists in the target/,
  },
  {
    name: 'a base revision the target no longer has',
    breakIt: async (fork) => fork.ctx.store.writeRecord({ ...(await fork.record()), base_revision: 'f'.repeat(40) }),
    failed: ['base_revision_exists'],
    code: 'LANDING_PRECONDITION_FAILED',
    reason: /base revision f{40} no longer exists/,
  },
  {
    name: 'a receipt that no longer verifies',
    breakIt: async (fork) => ({ input: fork.input({ ok: false, reason: 'the fork receipt signature does not verify' }) }),
    failed: ['receipt_verified'],
    code: 'LANDING_PRECONDITION_FAILED',
    reason: /^the fork receipt signature does not verify$/,
  },
  {
    name: 'a receipt verifier that throws',
    breakIt: async (fork) => ({
      input: {
        ...fork.input(),
        isReceiptVerified: async () => {
          throw new Error('evidence unreadable');
        },
      },
    }),
    failed: ['receipt_verified'],
    code: 'LANDING_PRECONDITION_FAILED',
    reason: /could not be verified: evidence unreadable/,
  },
  {
    name: 'a wrong token',
    breakIt: async (_fork, token) => ({ token: token.replace(/^./, (c) => (c === '0' ? '1' : '0')) }),
    failed: ['confirmation_token'],
    code: 'LANDING_TOKEN_MISMATCH',
    reason: /does not match the current landing plan/,
  },
  {
    name: 'a malformed token',
    breakIt: async () => ({ token: 'ABC' }),
    failed: ['confirmation_token'],
    code: 'LANDING_TOKEN_MISMATCH',
    reason: /12 lowercase hex digits/,
  },
  {
    name: 'a selected branch that moved after the token was issued',
    breakIt: async (fork) => {
      git(fork.repo, 'checkout', '--quiet', fork.gitBranch);
      commitFiles(fork.repo, 'more branch work', { 'late.txt': 'late\n' });
      git(fork.repo, 'checkout', '--quiet', 'main');
    },
    failed: ['confirmation_token'],
    code: 'LANDING_TOKEN_MISMATCH',
    reason: /have changed: selected_branch_head [0-9a-f]{40} → [0-9a-f]{40}$/,
  },
  {
    name: 'a recorded target path that now resolves elsewhere (symlink swap)',
    breakIt: async (fork) => {
      const real = `${fork.repo}-moved`;
      renameSync(fork.repo, real);
      symlinkSync(real, fork.repo);
      return { repo: real };
    },
    failed: ['selected_branch_exists', 'base_revision_exists', 'target_contained', 'target_clean', 'target_on_branch', 'target_head_confirmed', 'confirmation_token'],
    code: 'LANDING_PRECONDITION_FAILED',
    reason: /cannot be checked: the target repository is unusable/,
  },
];

async function issued(): Promise<{ fork: FakeFork; token: string }> {
  const base = realpathSync(tempDir('citadel-land-pre-'));
  const fork = await fakeFork(base, makeRepo(base));
  const { token } = await landingChecks(fork.input());
  if (token === null) throw new Error('the fixture fork should be landable');
  return { fork, token };
}

async function refusal(promise: Promise<unknown>): Promise<CitadelError> {
  const error: unknown = await promise.then(
    () => new Error('landing was not refused'),
    (e: unknown) => e,
  );
  if (!(error instanceof CitadelError)) throw error;
  return error;
}

describe('land refuses when one precondition fails, and leaves the target untouched', () => {
  it.each(cases)('$name', async ({ breakIt, failed, code, reason }) => {
    const { fork, token } = await issued();
    const changed = (await breakIt(fork, token)) ?? {};
    const targetDir = changed.repo ?? fork.repo;
    const before = targetState(targetDir);
    const recordBefore = await fork.record();

    const error = await refusal(land(changed.input ?? fork.input(), changed.token ?? token));

    expect(error.code).toBe(code);
    const checks = error.details?.checks as LandingCheck[];
    expect(checks.map((c) => c.name)).toEqual([...LANDING_CHECK_NAMES]);
    expect(checks.filter((c) => !c.ok).map((c) => c.name)).toEqual(failed);
    expect(error.details?.failed).toEqual(failed);
    for (const check of checks.filter((c) => !c.ok)) {
      expect(check.reason).toEqual(expect.any(String));
      expect(error.message).toContain(`${check.name} (${check.reason})`);
    }
    expect(checks.find((c) => !c.ok)?.reason).toMatch(reason);

    expect(targetState(targetDir)).toEqual(before);
    expect(await fork.record()).toEqual(recordBefore);
    expect(fork.journalLines().filter((r) => r.effect === 'landing.merge')).toEqual([]);
  });

  it('refuses a confirmation when no plan was issued, even with the right token', async () => {
    const base = realpathSync(tempDir('citadel-land-pre-'));
    const fork = await fakeFork(base, makeRepo(base));
    const before = targetState(fork.repo);
    // The right token, computed without the checks ever issuing a plan: the operator reviewed nothing.
    const token = landingToken({
      fork_id: fork.forkId,
      fork_revision: 1,
      selection_digest: selectionDigest(fork.selection),
      target_repo_head: before.head ?? '',
      selected_branch_head: fork.selectedHead,
    });

    const error = await refusal(land(fork.input(), token));

    expect(error.code).toBe('LANDING_PRECONDITION_FAILED');
    expect(error.details?.failed).toEqual(['target_head_confirmed']);
    expect(error.message).toMatch(/no landing plan was issued/);
    expect(targetState(fork.repo)).toEqual(before);
    expect(fork.journalLines().filter((r) => r.effect === 'landing.merge')).toEqual([]);
  });
});
