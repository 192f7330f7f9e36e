import { z } from 'zod';
import { writePrivateJson } from '../store/atomic-file';
import { CHECKPOINT, readStoredJson } from '../store/read-stored-json';

/**
 * One attempt's setup while it runs (`setup-progress.json`): each step begun so far, with its
 * latest status and when it got it. The setup facts are written only once every step is over; this
 * lets a view opened mid-setup (a fork started minutes ago, an `npm ci` still going) show the step
 * under way. Private, for display only: never part of a receipt.
 */
export const SetupProgressSchema = z.strictObject({
  steps: z.array(z.strictObject({ id: z.string(), status: z.enum(['running', 'passed', 'failed', 'not_run']), at: z.iso.datetime() })),
});
export type SetupProgress = z.infer<typeof SetupProgressSchema>;
type StepStatus = SetupProgress['steps'][number]['status'];

export interface SetupProgressWriter {
  /** A setup run begins: what an earlier, interrupted run wrote is replaced. */
  begin(): Promise<void>;
  step(id: string, status: StepStatus): Promise<void>;
}

export function setupProgress(file: string, now: () => Date): SetupProgressWriter {
  let steps: SetupProgress['steps'] = [];
  const write = (): Promise<void> => writePrivateJson(file, { steps });
  return {
    begin() {
      steps = [];
      return write();
    },
    step(id, status) {
      steps = [...steps.filter((s) => s.id !== id), { id, status, at: now().toISOString() }];
      return write();
    },
  };
}

/** Null when no setup has begun (or the file cannot be read: it only ever adds to a view). */
export function readSetupProgress(file: string): Promise<SetupProgress | null> {
  return readStoredJson(file, SetupProgressSchema, CHECKPOINT);
}
