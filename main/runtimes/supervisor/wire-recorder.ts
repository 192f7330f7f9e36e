import { appendFileSync } from 'node:fs';
import type { WireExchange } from '../../../shared/runtime/wire';
import { PRIVATE_FILE_MODE } from '../../store/atomic-file';

/**
 * A run's requests past this many are still witnessed by the gateway (the budget counts them) but not
 * written: a runtime looping on requests must not fill the disk. The receipt's totals are then a lower bound.
 */
export const MAX_RECORDED_EXCHANGES = 10_000;

/**
 * Records what the gateway saw of each request as one JSON line, owner-only. Synchronous appends, so
 * a line is whole before the next and before the final record: a request is slow next to a write.
 */
export function wireRecorder(file: string): (exchange: WireExchange) => void {
  let recorded = 0;
  return (exchange) => {
    if (recorded >= MAX_RECORDED_EXCHANGES) return;
    recorded += 1;
    try {
      appendFileSync(file, `${JSON.stringify(exchange)}\n`, { mode: PRIVATE_FILE_MODE });
    } catch {
      // The gateway still enforced its rules; the supervisor must outlive a full disk.
    }
  };
}
