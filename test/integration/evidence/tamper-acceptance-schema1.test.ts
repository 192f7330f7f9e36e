/** The tamper acceptance suite (tamper/suite.ts, whose header says what it does) over a schema 1 fork. */
import { vi } from 'vitest';
import { defineTamperSuite } from './tamper/suite';

// Reads of the target repository, which no mutation touches: memoised by their arguments.
vi.mock('../../../main/landing/target-facts', async (original) => (await import('./tamper/memoise')).memoised(await original<Record<string, unknown>>(), ['targetFacts']));
vi.mock('../../../main/git/refs', async (original) => (await import('./tamper/memoise')).memoised(await original<Record<string, unknown>>(), ['revParse']));
vi.mock('../../../main/git/diff', async (original) => (await import('./tamper/memoise')).memoised(await original<Record<string, unknown>>(), ['diffText']));
vi.mock('../../../main/landing/target-identity', async (original) => (await import('./tamper/memoise')).memoised(await original<Record<string, unknown>>(), ['targetRepositoryDigest', 'targetMismatch']));
vi.mock('../../../main/landing/find-merge-commit', async (original) =>
  (await import('./tamper/memoise')).memoised(await original<Record<string, unknown>>(), ['findMergeCommit', 'mergeCommitHolds', 'commitTime']),
);
// Whether a key is one the local key store holds: the key store is never mutated (memoised per context).
vi.mock('../../../main/evidence/trust/signer-trust', async (original) => (await import('./tamper/memoise')).memoisedPerContext(await original<Record<string, unknown>>(), ['signerTrust']));
// Re-verification, pure of the stored files: memoised per working copy between changes to its folder (verify-cache.ts).
vi.mock('../../../main/evidence/verify-fork', async (original) => (await import('./tamper/verify-cache')).cachedVerifyFork(await original()));

defineTamperSuite(1);
