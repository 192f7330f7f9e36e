import { closeSync, readdirSync, readFileSync } from 'node:fs';

/** O_CLOEXEC as /proc/<pid>/fdinfo reports it (octal `flags:`); Linux's value on every architecture Citadel runs on. */
const O_CLOEXEC = 0o2000000;

/**
 * Closes every descriptor above `keepThrough` that this process inherited without close-on-exec.
 * Node spawns children without closing such descriptors, and bwrap passes them on to its command:
 * a lock file or directory the operator's shell, CI runner or IDE left open would be reachable in
 * the sandbox through /proc/self/fd. Node and libuv open all of their own with close-on-exec, so
 * only inherited ones are closed. Without /proc (macOS) nothing can be listed, and nothing is closed.
 */
export function closeInheritedDescriptors(keepThrough: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc/self/fd');
  } catch {
    return [];
  }
  const closed: number[] = [];
  for (const entry of entries) {
    const fd = Number(entry);
    if (!Number.isInteger(fd) || fd <= keepThrough) continue;
    const flags = descriptorFlags(fd);
    if (flags === null || (flags & O_CLOEXEC) !== 0) continue;
    try {
      closeSync(fd);
      closed.push(fd);
    } catch {
      // gone meanwhile (the directory listing's own descriptor)
    }
  }
  return closed;
}

function descriptorFlags(fd: number): number | null {
  try {
    const match = /^flags:\s+([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'));
    return match ? parseInt(match[1] as string, 8) : null;
  } catch {
    return null;
  }
}
