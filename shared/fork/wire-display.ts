import type { WireFacts } from '../runtime/wire';

/** What the provider gateway saw of a branch, in one line: the CLI and the Fork view say the same. */
export function describeWire(w: WireFacts): string {
  const outcomes = [`${w.completed} completed`, w.refused > 0 ? `${w.refused} refused` : '', w.upstream_errors > 0 ? `${w.upstream_errors} provider errors` : '', w.aborted > 0 ? `${w.aborted} cut off` : '']
    .filter(Boolean)
    .join(', ');
  const served = w.served_models.length === 0 ? 'no model named in the answers' : `served ${w.served_models.join(', ')}`;
  const flags = [w.budget_exceeded ? 'token budget exceeded' : '', w.credential_failed ? 'provider credential failed' : ''].filter(Boolean);
  return `${w.requests} requests (${outcomes}); ${served}; ${w.input_tokens} in / ${w.output_tokens} out tokens${w.usage_complete ? '' : ' at least'}${flags.length === 0 ? '' : `; ${flags.join(', ')}`}`;
}
