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

/**
 * Past the caps, the first few of each refusal are still written: a flood of one refusal must hide
 * neither another (an mcp_servers attempt) nor the one that decides the branch (wireFailureOf).
 */
const FIRST_OF_EACH_REFUSAL = 20;

/**
 * Records what the gateway saw of each request as one JSON line, owner-only. Synchronous appends, so
 * a line is whole before the next and before the final record: a request is slow next to a write.
 */
export function wireRecorder(file: string): (exchange: WireExchange) => void {
  let refused = 0;
  let answered = 0;
  const refusals = new Map<WireRefusal, number>();
  return (exchange) => {
    const ofItsKind = exchange.refusal === null ? Infinity : (refusals.get(exchange.refusal) ?? 0);
    if (exchange.refusal !== null) refusals.set(exchange.refusal, ofItsKind + 1);
    const kept = ofItsKind < FIRST_OF_EACH_REFUSAL;
    if (exchange.outcome === 'refused') {
      if (refused >= MAX_RECORDED_EXCHANGES && !kept) return;
      refused += 1;
    } else {
      if (answered >= MAX_RECORDED_EXCHANGES && !kept) return;
      answered += 1;
    }
    try {
      appendFileSync(file, `${JSON.stringify(exchange)}\n`, { mode: PRIVATE_FILE_MODE });
    } catch {
      // The gateway still enforced its rules; the supervisor must outlive a full disk.
    }
  };
}
