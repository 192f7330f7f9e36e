import { describe, expect, it } from 'vitest';
import { digestOf, sha256Digest } from '../../../shared/digest';
import { CitadelError } from '../../../shared/errors';
import type { WorktreeIncludeEntry } from '../../../shared/fork/contract';
import { describeIncludeList, includeListDigest } from '../../../shared/fork/include-confirmation';
import { assertIncludesConfirmed, includeConfirmationOf, keepIncludeConfirmation } from '../../../main/orchestrator/include-confirmation';
import { ForkRoot } from '../../../main/store/fork-root';
import { useTempDirs } from '../../support/temp-dir';

/** Issue 27: the list digest, and when a start's `.worktreeinclude` list is refused, passed or recorded. */
const tempDir = useTempDirs();

const REPO = { digest: digestOf({ repository: 'a' }), root: '/work/repo-a' };
const OTHER = { digest: digestOf({ repository: 'b' }), root: '/work/repo-b' };
const entry = (file: string, content: string): WorktreeIncludeEntry => ({ path: file, digest: sha256Digest(content), size_bytes: content.length });
const ENV = entry('.env', 'TOKEN=1\n');
const KEY = entry('keys/deploy.pem', 'PRIVATE\n');

async function context(): Promise<{ root: ForkRoot; now: () => Date }> {
  return { root: await ForkRoot.open(tempDir()), now: () => new Date('2026-12-05T20:00:00.000Z') };
}

/** The refusal a check threw; a check that passes fails the test. */
const refusal = (check: Promise<unknown>): Promise<CitadelError> =>
  check.then(
    () => Promise.reject(new Error('expected a refusal')),
    (error: unknown) => (error instanceof CitadelError ? error : Promise.reject(error)),
  );

describe('the include-list digest', () => {
  it('is over the sorted paths only: the order and the contents do not change it, a file added or removed does', () => {
    expect(includeListDigest(['.env', 'keys/deploy.pem'])).toBe(digestOf({ worktree_include: ['.env', 'keys/deploy.pem'] }));
    expect(includeListDigest(['keys/deploy.pem', '.env'])).toBe(includeListDigest(['.env', 'keys/deploy.pem']));
    expect(includeListDigest(['.env'])).not.toBe(includeListDigest(['.env', 'keys/deploy.pem']));
    expect(includeListDigest(['.env'])).not.toBe(includeListDigest(['.env.local']));
  });

  it('describes the list by names and exact sizes', () => {
    expect(describeIncludeList([{ path: '.env', size_bytes: 8 }, { path: 'one', size_bytes: 1 }])).toBe('.env (8 bytes), one (1 byte)');
  });
});

describe('confirming a .worktreeinclude list', () => {
  it('asks nothing, and reads nothing, where the list names no file', async () => {
    const ctx = {
      get root(): ForkRoot {
        throw new Error('the settings were read');
      },
    };
    expect(await includeConfirmationOf(ctx, REPO.digest, [])).toBeNull();
    expect(await assertIncludesConfirmed(ctx, REPO, [], undefined)).toBeNull();
  });

  it('refuses an unconfirmed list with its files, sizes and digest, and says how to confirm', async () => {
    const ctx = await context();
    const error = await refusal(assertIncludesConfirmed(ctx, REPO, [ENV, KEY], undefined));
    expect(error.code).toBe('WORKTREE_INCLUDE_UNCONFIRMED');
    expect(error.details).toEqual({
      repository: REPO.root,
      files: [
        { path: '.env', size_bytes: 8 },
        { path: 'keys/deploy.pem', size_bytes: 8 },
      ],
      include_digest: includeListDigest(['.env', 'keys/deploy.pem']),
    });
    expect(error.message).toContain('these 2 ignored files of yours into every agent\'s worktree: .env (8 bytes), keys/deploy.pem (8 bytes).');
    expect(error.message).toContain('--include-confirmed');
    expect(error.message).not.toContain('changed');
  });

  it('passes a list confirmed at this start (as listed, or by its digest), and keeps it only when asked to', async () => {
    const ctx = await context();
    const digest = includeListDigest(['.env']);
    expect(await assertIncludesConfirmed(ctx, REPO, [ENV], 'current-list')).toEqual({ repository: REPO.digest, repositoryRoot: REPO.root, digest });
    const byDigest = await assertIncludesConfirmed(ctx, REPO, [ENV], digest);
    expect(byDigest).toEqual({ repository: REPO.digest, repositoryRoot: REPO.root, digest });
    // Passing the check records nothing: a start refused later leaves no confirmation behind.
    expect(await includeConfirmationOf(ctx, REPO.digest, [ENV])).toMatchObject({ confirmed: false });

    await keepIncludeConfirmation(ctx, byDigest!);
    expect(await includeConfirmationOf(ctx, REPO.digest, [ENV])).toEqual({ files: [{ path: '.env', size_bytes: 8 }], digest, confirmed: true });
    expect(await assertIncludesConfirmed(ctx, REPO, [entry('.env', 'ROTATED=22\n')], undefined)).toBeNull();
    // Kept per repository: the same list elsewhere is asked about.
    expect((await refusal(assertIncludesConfirmed(ctx, OTHER, [ENV], undefined))).code).toBe('WORKTREE_INCLUDE_UNCONFIRMED');
  });

  it('refuses a digest of another list (the list changed after the preview), and asks again for a changed list', async () => {
    const ctx = await context();
    const stale = await refusal(assertIncludesConfirmed(ctx, REPO, [ENV, KEY], includeListDigest(['.env'])));
    expect(stale.code).toBe('WORKTREE_INCLUDE_UNCONFIRMED');
    expect(stale.message).toContain("The digest given is not this list's");

    await keepIncludeConfirmation(ctx, (await assertIncludesConfirmed(ctx, REPO, [ENV], 'current-list'))!);
    expect((await refusal(assertIncludesConfirmed(ctx, REPO, [ENV, KEY], undefined))).details?.include_digest).toBe(includeListDigest(['.env', 'keys/deploy.pem']));
    expect((await refusal(assertIncludesConfirmed(ctx, REPO, [KEY], undefined))).code).toBe('WORKTREE_INCLUDE_UNCONFIRMED');
  });
});
