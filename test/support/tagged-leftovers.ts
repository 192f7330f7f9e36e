import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Processes whose command line carries `tag`, by pid (this process excepted). */
export function processesTagged(tag: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(tag)) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Entries of /tmp (and of TMPDIR, when it is elsewhere) whose name carries `tag`. */
export function tmpEntriesTagged(tag: string): string[] {
  const dirs = [...new Set(['/tmp', tmpdir()])];
  return dirs.flatMap((dir) => (readdirSync(dir, { withFileTypes: true }) as { name: string }[]).filter((entry) => entry.name.includes(tag)).map((entry) => path.join(dir, entry.name)));
}

/** SIGKILLs every process and removes every /tmp entry carrying `tag`; returns what it found. */
export function removeTagged(tag: string): { processes: number[]; files: string[] } {
  const processes = processesTagged(tag);
  for (const pid of processes) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  const files = tmpEntriesTagged(tag);
  for (const file of files) rmSync(file, { recursive: true, force: true });
  return { processes, files };
}
