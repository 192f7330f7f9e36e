import { closeSync, fsyncSync, write } from 'node:fs';
import { promisify } from 'node:util';
import { Writable, type Readable } from 'node:stream';
import type { RunOutput, StreamOutput } from './run-status';

const writeTo = promisify(write);

/**
 * Once the runtime's group is gone, how long what it left in the pipes gets to arrive. Only a
 * process that escaped the group (uncontained: setsid) can still hold a pipe open; past this its
 * pipe is closed, so nothing it prints reaches a log after the final record.
 */
export const OUTPUT_DRAIN_MS = 2_000;

interface OutputLog {
  readonly done: Promise<StreamOutput>;
  /** Stops reading the pipe; what was read is still written, then the log is closed. */
  stop(): void;
}

/**
 * One runtime stream appended to its log (`fd`, opened for append), at most `capBytes` of it; the
 * rest is read, counted and discarded, so the runtime never blocks on a full pipe. Piping reads the
 * pipe no faster than the log is written, so memory stays bounded however much the runtime prints.
 */
function appendCapped(source: Readable, fd: number, capBytes: number): OutputLog {
  let received = 0;
  let written = 0;
  let failed = false;
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      received += chunk.length;
      const keep = failed ? 0 : Math.min(chunk.length, capBytes - written);
      if (keep <= 0) return callback();
      appendAll(fd, chunk.subarray(0, keep), (n) => (written += n)).then(
        () => callback(),
        // A log that cannot be written (disk full) must not stall the runtime: the rest is dropped.
        () => {
          failed = true;
          callback();
        },
      );
    },
  });
  const done = new Promise<StreamOutput>((resolve) => {
    sink.once('finish', () => {
      // The collector reads the logs once `exited` is recorded: they are on disk before that.
      try {
        fsyncSync(fd);
      } catch {
        // A log that cannot be synced still holds what was written.
      }
      closeSync(fd);
      resolve({ received_bytes: received, dropped_bytes: received - written });
    });
  });
  const end = () => {
    if (!sink.writableEnded) sink.end();
  };
  // pipe() ends the log only on the pipe's end; a pipe that errors or closes without one ends it too.
  source.once('error', end).once('close', end);
  source.pipe(sink);
  return {
    done,
    stop: () => {
      source.unpipe(sink);
      source.destroy();
      end();
    },
  };
}

async function appendAll(fd: number, bytes: Buffer, onWritten: (n: number) => void): Promise<void> {
  for (let offset = 0; offset < bytes.length; ) {
    // null position: appended at the end, as the log was opened for append.
    const { bytesWritten } = await writeTo(fd, bytes, offset, bytes.length - offset, null);
    onWritten(bytesWritten);
    offset += bytesWritten;
  }
}

export interface RuntimeOutput {
  /**
   * Call once the runtime's whole group is gone: resolves when both logs are written, synced and
   * closed (after OUTPUT_DRAIN_MS at most), with what each stream received and dropped.
   */
  finish(): Promise<RunOutput>;
}

/** The runtime's stdout and stderr pipes, each appended to its log with the same cap. */
export function captureRuntimeOutput(
  pipes: { stdout: Readable; stderr: Readable },
  logs: { stdout: number; stderr: number },
  capBytes: number,
): RuntimeOutput {
  const stdout = appendCapped(pipes.stdout, logs.stdout, capBytes);
  const stderr = appendCapped(pipes.stderr, logs.stderr, capBytes);
  return {
    finish: async () => {
      const timer = setTimeout(() => {
        stdout.stop();
        stderr.stop();
      }, OUTPUT_DRAIN_MS);
      const [out, err] = await Promise.all([stdout.done, stderr.done]);
      clearTimeout(timer);
      return { cap_bytes: capBytes, stdout: out, stderr: err };
    },
  };
}
