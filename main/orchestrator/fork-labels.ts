import path from 'node:path';
import { z } from 'zod';
import { sha256Digest } from '../../shared/digest';
import type { Contract } from '../../shared/fork/contract';
import type { ForkRecord, ForkStatus } from '../../shared/fork/fork-record';
import { forkStatusOf, objectiveTitle, printableLabel, type ForkLabels } from '../../shared/fork/fork-status';
import type { OrchestratorContext } from '../host/context';
import { storedFileMaxBytes } from '../store/fork-layout';
import { readBoundedBytes } from '../store/read-bounded-text';
import { readStoredJson, UNTRUSTED } from '../store/read-stored-json';
import { verifiedContract } from './contract-standing';
import { forkFamily } from './fork-family';

/**
 * A fork's local labels (issue 14): the title is the first line of `objective.txt`, shown only when
 * the file is the objective the contract binds by digest (fork.json is unsigned, so a title there
 * could be anyone's); the repository name is the last component of the recorded target. Both are
 * private: they go to the operator's own list and page, never into a replay, proof or attestation.
 */
export async function forkLabels(ctx: Pick<OrchestratorContext, 'store'>, forkId: string, contract: Contract | null): Promise<ForkLabels> {
  const [title, repo] = await Promise.all([titleOf(ctx, forkId, contract), storedRepoPath(ctx, forkId)]);
  return { ...title, repo_name: repo === null ? null : printableLabel(path.basename(repo)) };
}

// Only the path is needed here: the profiles beside it are checked by whatever launches them.
const RequestRepoSchema = z.object({ repo: z.string().min(1) });

/** The target repository the fork's request records; null when request.json cannot be read. */
export async function storedRepoPath(ctx: Pick<OrchestratorContext, 'store'>, forkId: string): Promise<string | null> {
  const stored = await readStoredJson(ctx.store.file(forkId, 'request'), RequestRepoSchema, UNTRUSTED);
  return stored.status === 'valid' ? stored.value.repo : null;
}

const UNVERIFIED_TITLE = { title: null, title_standing: 'unverified' } as const;

async function titleOf(ctx: Pick<OrchestratorContext, 'store'>, forkId: string, contract: Contract | null): Promise<Pick<ForkLabels, 'title' | 'title_standing'>> {
  if (contract === null) return UNVERIFIED_TITLE;
  const file = ctx.store.file(forkId, 'objective');
  const read = await readBoundedBytes(file, storedFileMaxBytes(file), 'refuse');
  if (!read.ok || sha256Digest(read.bytes) !== contract.objective_digest) return UNVERIFIED_TITLE;
  return { title: objectiveTitle(read.bytes.toString('utf8')), title_standing: 'verified' };
}

/** One fork's status as `fork status ID` and Mission Control show it: the record's projection with its labels. */
export async function labelledStatus(ctx: Pick<OrchestratorContext, 'store'>, record: ForkRecord): Promise<ForkStatus> {
  const contract = await verifiedContract(ctx, record);
  const [labels, family] = await Promise.all([forkLabels(ctx, record.fork_id, contract), forkFamily(ctx, record, contract)]);
  return forkStatusOf(record, labels, family);
}
