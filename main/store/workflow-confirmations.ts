import path from 'node:path';
import type { Digest } from '../../shared/digest';
import {
  MAX_WORKFLOW_CONFIRMATIONS,
  WORKFLOW_CONFIRMATIONS_SCHEMA_VERSION,
  WorkflowConfirmationsFileSchema,
  type WorkflowConfirmationRecord,
} from '../../shared/fork/workflow-confirmation';
import { writePrivateJson } from './atomic-file';
import type { ForkRoot } from './fork-root';
import { readStoredJson, UNTRUSTED } from './read-stored-json';

export function workflowConfirmationsFile(root: ForkRoot): string {
  return root.settingsFile('workflow-confirmations.json');
}

/** Whether the operator confirmed the workflow file of digest `workflowDigest` for `repository`. A missing or damaged file confirms nothing: the workflow is asked about again. */
export async function isRepositoryWorkflowConfirmed(root: ForkRoot, repository: Digest, workflowDigest: Digest): Promise<boolean> {
  return (await readConfirmations(root)).some((c) => c.repository === repository && c.workflow_digest === workflowDigest);
}

// One change at a time in this process: two records racing would each write the list they read.
// Across processes the later write wins; a confirmation lost that way is only asked for again.
let queue: Promise<unknown> = Promise.resolve();

/** Keeps `confirmation`, newest last, replacing one of the same repository and file. A damaged file is replaced: losing a confirmation only asks again. */
export function recordWorkflowConfirmation(root: ForkRoot, confirmation: WorkflowConfirmationRecord): Promise<void> {
  const next = queue.then(async () => {
    const others = (await readConfirmations(root)).filter((c) => c.repository !== confirmation.repository || c.workflow_digest !== confirmation.workflow_digest);
    const file = workflowConfirmationsFile(root);
    await root.ensureDir(path.dirname(file));
    await root.assertNoSymlinks(file);
    const confirmations = [...others, confirmation].slice(-MAX_WORKFLOW_CONFIRMATIONS);
    await writePrivateJson(file, { schema_version: WORKFLOW_CONFIRMATIONS_SCHEMA_VERSION, confirmations });
  });
  queue = next.catch(() => undefined);
  return next;
}

async function readConfirmations(root: ForkRoot): Promise<WorkflowConfirmationRecord[]> {
  const file = workflowConfirmationsFile(root);
  await root.assertNoSymlinks(file);
  const stored = await readStoredJson(file, WorkflowConfirmationsFileSchema, UNTRUSTED);
  return stored.status === 'valid' ? stored.value.confirmations : [];
}
