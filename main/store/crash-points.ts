const hits = new Map<string, number>();

/**
 * Named effect boundaries. A test sets CITADEL_CRASH_AT=<name> (and optionally
 * CITADEL_CRASH_AT_HIT=<n>, the n-th time that boundary is reached) in a real child process,
 * which is then killed with SIGKILL exactly there, to prove that `citadel fork resume` converges.
 */
export function crashPoint(name: string): void {
  if (process.env.CITADEL_CRASH_AT !== name) return;
  const hit = (hits.get(name) ?? 0) + 1;
  hits.set(name, hit);
  if (hit === Number(process.env.CITADEL_CRASH_AT_HIT ?? '1')) process.kill(process.pid, 'SIGKILL');
}
