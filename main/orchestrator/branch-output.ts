import { digestOf } from '../../shared/digest';
import { signedEnvelopeSchema } from '../../shared/evidence/signed-envelope';
import { CitadelError } from '../../shared/errors';
import {
  OUTPUT_LOG_MAX_BYTES,
  OUTPUT_TAIL_MAX_BYTES,
  OUTPUT_TAIL_MAX_LINES,
  OutputLogIdSchema,
  VERIFIER_OUTPUT_STEPS,
  type BranchOutput,
  type OutputLogId,
  type OutputText,
} from '../../shared/fork/branch-output';
import { ContractV1Schema, ContractV2Schema, type Contract } from '../../shared/fork/contract';
import type { BranchRecord, ForkRecord } from '../../shared/fork/fork-record';
import { ExecutionReceiptSchema } from '../../shared/fork/receipts';
import type { OrchestratorContext } from '../host/context';
import { RunStatusSchema } from '../runtimes/supervisor/run-status';
import { readSetupFacts } from '../setup/setup-facts';
import { attemptFiles, type AttemptFiles } from '../store/fork-layout';
import { CHECKPOINT, readStoredJson, UNTRUSTED } from '../store/read-stored-json';
import { keptOutput, type OutputBound } from './output-text';

const TAIL: OutputBound = { bytes: OUTPUT_TAIL_MAX_BYTES, lines: OUTPUT_TAIL_MAX_LINES };
const FULL: OutputBound = { bytes: OUTPUT_LOG_MAX_BYTES, lines: null };

const ReceiptEnvelopeSchema = signedEnvelopeSchema(ExecutionReceiptSchema);

/**
 * What the branch's current attempt printed (issue 29): the ends of its runtime's stdout and
 * stderr, of each setup step's output and of each verifier step's, and which of them explains its
 * failure code. Read from the attempt's private files as they are now (display only: the step
 * facts come from its supervisor record, setup record and receipt, unverified), so it can be
 * asked while the branch runs. A log not written (yet) is absent.
 */
export async function branchOutput(ctx: OrchestratorContext, forkId: string, branchId: string): Promise<BranchOutput> {
  const { record, branch } = await branchOf(ctx, forkId, branchId);
  const files = attemptFiles(ctx.root, forkId, branchId, branch.attempt);
  const tail = (log: OutputLogId): Promise<OutputText> => keptOutput(logFile(files, log), log, TAIL);
  const [contract, run, envelope, setupFacts, stdout, stderr] = await Promise.all([
    contractOf(ctx, record),
    readStoredJson(files.status, RunStatusSchema, CHECKPOINT),
    readStoredJson(files.receipt, ReceiptEnvelopeSchema, CHECKPOINT),
    readSetupFacts(files.setupFacts),
    tail('stdout'),
    tail('stderr'),
  ]);
  const exited = run?.phase === 'exited' ? run : null;
  const dropped = exited?.output ?? null;

  const declared = contract?.workflow.setup ?? setupFacts?.steps.map((step) => ({ id: step.id, command: null, args: [] })) ?? [];
  const setup = await Promise.all(
    declared.map(async (step) => {
      const fact = setupFacts?.steps.find((s) => s.id === step.id);
      return {
        step_id: step.id,
        argv: step.command === null ? null : [step.command, ...step.args],
        status: fact?.status ?? null,
        exit_code: fact?.exit_code ?? null,
        timed_out: fact?.timed_out ?? false,
        output: await tail(`setup:${step.id}`),
      };
    }),
  );

  const command = contract?.verifier.command ?? null;
  const verifier = (
    await Promise.all(
      VERIFIER_OUTPUT_STEPS.map(async (step) => {
        const fact = envelope?.receipt.verifier.steps.find((s) => s.id === step);
        const output = await tail(`verifier:${step}`);
        const ran = fact !== undefined && fact.status !== 'not_run';
        if (!ran && !output.present) return null;
        return {
          step,
          argv: step === 'workflow_verifier' && command !== null ? [command.command, ...command.args] : null,
          status: fact?.status ?? null,
          exit_code: fact?.exit_code ?? null,
          timed_out: fact?.timed_out ?? false,
          output,
        };
      }),
    )
  ).filter((entry) => entry !== null);

  const output = {
    fork_id: forkId,
    branch_id: branchId,
    attempt: branch.attempt,
    tail_limit: { lines: OUTPUT_TAIL_MAX_LINES, bytes: OUTPUT_TAIL_MAX_BYTES },
    runtime: {
      exit: exited === null ? null : { code: exited.exit_code, signal: exited.signal, timed_out: exited.timed_out, stopped: exited.stopped, spawn_error: exited.spawn_error },
      dropped_bytes: dropped === null || (dropped.stdout.dropped_bytes === 0 && dropped.stderr.dropped_bytes === 0) ? null : { stdout: dropped.stdout.dropped_bytes, stderr: dropped.stderr.dropped_bytes },
      stdout,
      stderr,
    },
    setup,
    verifier,
  };
  return { ...output, explains: explainingLog(branch, output) };
}

/** "Show all": the end of one kept log, up to OUTPUT_LOG_MAX_BYTES, redacted as its tail is. */
export async function branchLog(ctx: OrchestratorContext, forkId: string, branchId: string, log: string): Promise<OutputText> {
  // The name becomes a file name: only the shapes the schema allows ever reach a path.
  if (!OutputLogIdSchema.safeParse(log).success) {
    throw new CitadelError('USAGE_ERROR', `no kept log is named "${log}": name stdout, stderr, setup:STEP_ID or verifier:${VERIFIER_OUTPUT_STEPS.join('|')}`);
  }
  const { branch } = await branchOf(ctx, forkId, branchId);
  return keptOutput(logFile(attemptFiles(ctx.root, forkId, branchId, branch.attempt), log), log, FULL);
}

async function branchOf(ctx: OrchestratorContext, forkId: string, branchId: string): Promise<{ record: ForkRecord; branch: BranchRecord }> {
  const record = await ctx.store.readRecord(forkId);
  const branch = record.branches.find((b) => b.branch_id === branchId);
  if (branch === undefined) throw new CitadelError('BRANCH_NOT_FOUND', `no branch ${branchId} in ${forkId}`, { details: { fork_id: forkId, branch_id: branchId } });
  return { record, branch };
}

/** The stored contract for its step names and commands; null when it cannot be read or is not the fork's (the logs are still shown). */
async function contractOf(ctx: OrchestratorContext, record: ForkRecord): Promise<Contract | null> {
  const stored = await readStoredJson(ctx.store.file(record.fork_id, 'contract'), record.schema_version === 1 ? ContractV1Schema : ContractV2Schema, UNTRUSTED);
  return stored.status === 'valid' && digestOf(stored.value) === record.contract_digest ? stored.value : null;
}

function logFile(files: AttemptFiles, log: OutputLogId): string {
  if (log === 'stdout' || log === 'stderr') return files[log];
  const [kind, step = ''] = log.split(':');
  return kind === 'setup' ? files.setupOutput(step) : files.verifierOutput(step);
}

type Explained = Omit<BranchOutput, 'explains'>;

/**
 * The kept log that says why the branch failed or blocked, or null. Setup: the step that failed.
 * The verifier: the step its code names, or the first that failed. The runtime: stdout where its
 * outcome is parsed from (an error it reported, output that did not parse), stderr where the
 * process itself failed; the other stream when that one is empty.
 */
function explainingLog(branch: BranchRecord, output: Explained): OutputLogId | null {
  const shown = (text: OutputText | undefined): OutputLogId | null => (text?.present === true && text.text !== '' ? text.log : null);
  const { stdout, stderr } = output.runtime;
  if (branch.blocked_code === 'SETUP_FAILED') return shown(output.setup.find((step) => step.status === 'failed')?.output);
  const verifierStep = (step: (typeof VERIFIER_OUTPUT_STEPS)[number]) => shown(output.verifier.find((entry) => entry.step === step)?.output);
  switch (branch.failure_code) {
    case null:
      return branch.state === 'blocked' ? (shown(stderr) ?? shown(stdout)) : null;
    case 'VERIFIER_FAILED':
      return output.verifier.filter((entry) => entry.status === 'failed').map((entry) => shown(entry.output)).find((log) => log !== null) ?? null;
    case 'POLICY_SYMLINK_ESCAPE':
      return verifierStep('result_symlinks');
    case 'POLICY_PROTECTED_PATH':
      return verifierStep('protected_paths');
    case 'VERIFICATION_TREE_MISMATCH':
      return verifierStep('verification_tree');
    case 'WORKTREE_CONTAINMENT_VIOLATION':
      return null;
    case 'RUNTIME_NOT_FOUND':
    case 'RUNTIME_SHIM_UNSUPPORTED':
    case 'RUNTIME_EXITED_NONZERO':
      return shown(stderr) ?? shown(stdout);
    default:
      return shown(stdout) ?? shown(stderr);
  }
}
