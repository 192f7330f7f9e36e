import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { digestOf, type Digest } from '../../shared/digest';
import { CitadelError } from '../../shared/errors';
import { ContractV1Schema, ContractV2Schema, type Contract } from '../../shared/fork/contract';
import type { ForkRecord } from '../../shared/fork/fork-record';
import { runGit, stdoutLine } from '../git/run';
import type { ForkStore } from '../store/fork-store';
import { readStoredJson, UNTRUSTED } from '../store/read-stored-json';

/**
 * The identity of a target repository (issue 12): its work tree's canonical top level and its git
 * common dir (realpath, device and inode), as one digest. Only the digest is ever stored, so the
 * contract names no path; a clone, a copy or a directory swapped in at the same path differs.
 * `root` is the realpath top level that `repositoryInfo` returns.
 */
export async function targetRepositoryDigest(root: string): Promise<Digest> {
  const common = await runGit(root, ['rev-parse', '--git-common-dir']);
  const commonDir = await realpath(path.resolve(root, stdoutLine(common)));
  const { dev, ino } = await stat(commonDir, { bigint: true });
  return digestOf({ work_tree: root, git_common_dir: commonDir, dev: dev.toString(), ino: ino.toString() });
}

/**
 * The target a fork's contract binds, when that contract still verifies against the record and
 * binds one. null for a fork created before the binding, and for a contract that no longer
 * verifies (its evidence verifies nothing, so landing is refused on its receipt; `clean` of such a
 * fork stays possible, as it must for a fork a runtime-only branch broke).
 */
export async function boundTargetDigest(store: ForkStore, record: ForkRecord): Promise<Digest | null> {
  return (await boundContract(store, record))?.target_repository_digest ?? null;
}

/** The fork's contract when it still matches the record's digest; null otherwise. */
export async function boundContract(store: ForkStore, record: ForkRecord): Promise<Contract | null> {
  const schema = record.schema_version === 1 ? ContractV1Schema : ContractV2Schema;
  const stored = await readStoredJson(store.file(record.fork_id, 'contract'), schema, UNTRUSTED);
  return stored.status === 'valid' && digestOf(stored.value) === record.contract_digest ? stored.value : null;
}

/** Why `repo` (request.json's, which is unsigned) is not the bound target; null when it is, or when nothing is bound. */
export async function targetMismatch(repo: string, bound: Digest | null): Promise<string | null> {
  if (bound === null) return null;
  let actual: Digest;
  try {
    actual = await targetRepositoryDigest(repo);
  } catch {
    return `${repo} cannot be identified as a git repository, so it is not the repository this fork's contract binds`;
  }
  return actual === bound ? null : `${repo} is not the repository this fork's contract binds (a different repository, clone or copy)`;
}

/** Refuses (LANDING_TARGET_MISMATCH) to act on `repo` unless it is the repository the fork's contract binds. */
export async function assertBoundTarget(store: ForkStore, record: ForkRecord, repo: string): Promise<void> {
  const problem = await targetMismatch(repo, await boundTargetDigest(store, record));
  if (problem !== null) throw new CitadelError('LANDING_TARGET_MISMATCH', problem, { details: { fork_id: record.fork_id } });
}
