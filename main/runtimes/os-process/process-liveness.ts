import { readdirSync } from 'node:fs';
import { readProcStat, type ProcStat } from './proc-stat';

/**
 * True when `pid` runs AND started at `startTime`, so a recycled pid is never taken for ours.
 * Zombies count as gone: they have finished and only wait to be reaped. Where the OS exposes no
 * start times (no /proc), a record made there (startTime null) falls back to the pid alone.
 */
export function isSameProcessAlive(pid: number, startTime: number | null): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  const stat = readProcStat(pid);
  if (stat !== null) return stat.startTime === startTime && isRunning(stat);
  return startTime === null && !hasProcfs() && signalReaches(pid);
}

/** True when some process in group `pgid` still runs (zombies do not count where /proc shows them). */
export function isProcessGroupAlive(pgid: number): boolean {
  // Group ids 0 and 1 would address the caller's own group or every process.
  if (!Number.isSafeInteger(pgid) || pgid <= 1) return false;
  if (!hasProcfs()) return signalReaches(-pgid);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readProcStat(Number(entry));
    if (stat !== null && stat.pgrp === pgid && isRunning(stat)) return true;
  }
  return false;
}

function isRunning(stat: ProcStat): boolean {
  return stat.state !== 'Z' && stat.state !== 'X' && stat.state !== 'x';
}

function hasProcfs(): boolean {
  return readProcStat(process.pid) !== null;
}

/** Signal 0 checks existence only; EPERM means it exists but belongs to someone else. */
function signalReaches(target: number): boolean {
  try {
    process.kill(target, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
