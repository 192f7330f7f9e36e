import { constants } from 'node:fs';
import { open } from 'node:fs/promises';

// Per read: a runtime that prints fast is followed over several ticks rather than read whole at once.
const MAX_READ_BYTES = 256 * 1024;
// A longer line (a command's whole output in one event) is skipped: nothing of it is shown anyway.
const MAX_LINE_BYTES = 64 * 1024;

/**
 * Follows a runtime's stdout log as the supervisor appends to it: each `read` answers the complete
 * lines added since the last one (a line still being written waits for its newline). Read-only,
 * never through a symlink; a log that does not exist yet reads as no lines.
 */
export class LogFollower {
  private offset = 0;
  private partial: Buffer = Buffer.alloc(0);
  private skipping = false;
  /** Whether the last read reached the end of the log as it then was. */
  caughtUp = true;

  constructor(private readonly file: string) {}

  /**
   * Moves past everything the log holds now, so the next `read` answers only lines added after
   * it. The read starts again at the last byte held, and the line through it is skipped: whole
   * (an empty one) when that byte ends a line, else the rest of a line cut off here.
   */
  async skipToEnd(): Promise<void> {
    let handle;
    try {
      handle = await open(this.file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch {
      return;
    }
    try {
      const stat = await handle.stat();
      if (!stat.isFile() || stat.size === 0) return;
      this.offset = stat.size - 1;
      this.partial = Buffer.alloc(0);
      this.skipping = true;
    } finally {
      await handle.close();
    }
  }

  async read(): Promise<string[]> {
    // A log that cannot be read counts as read to its end: a caller draining it never waits on it.
    this.caughtUp = true;
    let handle;
    try {
      handle = await open(this.file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch {
      return [];
    }
    let chunk: Buffer;
    try {
      if (!(await handle.stat()).isFile()) return [];
      const buffer = Buffer.alloc(MAX_READ_BYTES);
      const { bytesRead } = await handle.read(buffer, 0, MAX_READ_BYTES, this.offset);
      chunk = buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
    this.offset += chunk.length;
    this.caughtUp = chunk.length < MAX_READ_BYTES;
    return this.lines(chunk);
  }

  private lines(chunk: Buffer): string[] {
    const lines: string[] = [];
    let data = Buffer.concat([this.partial, chunk]);
    for (let end = data.indexOf(0x0a); end !== -1; end = data.indexOf(0x0a)) {
      if (!this.skipping) lines.push(data.subarray(0, end).toString('utf8'));
      this.skipping = false;
      data = data.subarray(end + 1);
    }
    if (data.length > MAX_LINE_BYTES) {
      this.skipping = true;
      data = Buffer.alloc(0);
    }
    this.partial = Buffer.from(data);
    return lines;
  }
}
