import { appendFileSync } from 'node:fs';
import type { WireExchange, WireRefusal } from '../../../shared/runtime/wire';
import { PRIVATE_FILE_MODE } from '../../store/atomic-file';

/**
 * A run's requests past this many are still witnessed by the gateway (the budget counts them) but not
 * written: a runtime looping on requests must not fill the disk. The receipt's totals are then a lower bound.
 * Counted apart for refusals (which cost the sandbox nothing) and for requests the provider answered,
 * so that a flood of refused requests cannot push the provider's answers out of the record.
 */
export const MAX_RECORDED_EXCHANGES = 10_000;

/** Refusals that decide the branch's outcome (wireFailureOf): the first of each is written whatever came before. */
const DECISIVE: readonly WireRefusal[] = ['budget_exceeded', 'credential_unavailable'];

/**
 * Records what the gateway saw of each request as one JSON line, owner-only. Synchronous appends, so
 * a line is whole before the next and before the final record: a request is slow next to a write.
 */
export function wireRecorder(file: string): (exchange: WireExchange) => void {
  let refused = 0;
  let answered = 0;
  const decided = new Set<WireRefusal>();
  return (exchange) => {
    const decisive = exchange.refusal !== null && DECISIVE.includes(exchange.refusal) && !decided.has(exchange.refusal);
    if (exchange.refusal !== null) decided.add(exchange.refusal);
    if (exchange.outcome === 'refused') {
      if (refused >= MAX_RECORDED_EXCHANGES && !decisive) return;
      refused += 1;
    } else {
      if (answered >= MAX_RECORDED_EXCHANGES && !decisive) return;
      answered += 1;
    }
    try {
      appendFileSync(file, `${JSON.stringify(exchange)}\n`, { mode: PRIVATE_FILE_MODE });
    } catch {
      // The gateway still enforced its rules; the supervisor must outlive a full disk.
    }
  };
}
