import { CitadelError, type CitadelErrorData, type ErrorCode } from '../../../shared/errors';
import { printable, printableJson, printableLine } from '../../../shared/terminal-controls';

/** Exit codes (decisions D1): 0 done, 1 refused or failed, 2 usage error. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

const USAGE_CODES: ReadonlySet<ErrorCode> = new Set(['USAGE_ERROR', 'EXECUTOR_SELECTION_CONFLICT', 'EXECUTOR_SELECTION_MISSING']);

export interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
}

export const processIo: Io = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
};

export function exitCodeFor(error: CitadelError): number {
  return USAGE_CODES.has(error.code) ? EXIT_USAGE : EXIT_FAILED;
}

export function asCitadelError(error: unknown): CitadelError {
  if (error instanceof CitadelError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new CitadelError('INTERNAL_ERROR', `internal error: ${message}`, { cause: error });
}

/** `--json`: exactly one JSON document on stdout, with no character a terminal would act on left raw. */
export function printJson(io: Io, value: unknown): void {
  io.stdout(`${printableJson(JSON.stringify(value, null, 2))}\n`);
}

export function printError(io: Io, error: CitadelError, json: boolean): number {
  if (json) printJson(io, { error: error.toData() satisfies CitadelErrorData });
  else {
    // Messages and violations quote repository text (file names, scripts, settings): shown, never acted on.
    const lines = [`citadel: ${error.code}: ${printable(error.message).replace(/\n/g, '\n  ')}`];
    for (const violation of error.violations ?? []) lines.push(`  ${printableLine(violation.path)}  ${violation.rule}  ${printableLine(violation.message)}`);
    io.stderr(`${lines.join('\n')}\n`);
  }
  return exitCodeFor(error);
}

/** Shell-style quoting for showing argv to a person; argv itself is never passed through a shell. */
export function displayArgv(argv: readonly string[]): string {
  return argv.map((arg) => (/^[A-Za-z0-9_./:=@+,-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`)).join(' ');
}
