import type { ForkEvent, ForkEventSink } from '../../../../shared/fork/events';
import type { ForkStatus } from '../../../../shared/fork/fork-record';
import type { PublicArtifact } from '../../../orchestrator';
import { printJson, type Io } from '../../io/output';
import { describeEvent, renderForkStatus } from '../render-fork';

/** `--json`: exactly one JSON document on stdout instead of text. */
export interface JsonOption {
  json?: boolean;
}

/** Progress lines on stderr; none with --json, whose stdout carries exactly one document. */
export function progress(io: Io, json: boolean): ForkEventSink {
  return json ? () => undefined : (event: ForkEvent) => io.stderr(describeEvent(event));
}

export function printRecord(io: Io, status: ForkStatus, json: boolean, extra: Record<string, unknown> = {}): void {
  if (json) printJson(io, { ...status, ...extra });
  else io.stdout(renderForkStatus(status));
}

/** A public artifact on stdout, or written to `output` with its digest reported. */
export function printArtifact(io: Io, artifact: PublicArtifact, output: string | undefined): void {
  if (output === undefined) io.stdout(artifact.text);
  else printJson(io, { written: output, digest: artifact.digest });
}
