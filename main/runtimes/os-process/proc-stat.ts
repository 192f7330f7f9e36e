import { readFileSync } from 'node:fs';

export interface ProcStat {
  /** One letter: R running, S sleeping, Z zombie, ... */
  readonly state: string;
  readonly pgrp: number;
  /** Clock ticks since boot at which the process started. */
  readonly startTime: number;
}

/**
 * Reads /proc/<pid>/stat (Linux); null where /proc is unavailable or the process does not exist.
 * Synchronous on purpose: the supervisor reads its child's entry before the event loop can reap it.
 */
export function readProcStat(pid: number): ProcStat | null {
  if (!Number.isSafeInteger(pid) || pid <= 0) return null;
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // Field 2 (the command name) may contain spaces and ')', so fields are counted after its last ')'.
  // The split then starts at field 3: field N is at index N - 3.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const pgrp = Number(fields[2]);
  const startTime = Number(fields[19]);
  if (!state || !Number.isSafeInteger(pgrp) || !Number.isSafeInteger(startTime)) return null;
  return { state, pgrp, startTime };
}

/** The process's start time (/proc/<pid>/stat field 22); null where unavailable (not Linux, or no such process). */
export function processStartTime(pid: number): number | null {
  return readProcStat(pid)?.startTime ?? null;
}
