import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { denialRecorder, MAX_RECORDED_DENIALS } from '../../../../main/runtimes/supervisor/egress-denials';
import { MAX_RECORDED_EXCHANGES, wireRecorder } from '../../../../main/runtimes/supervisor/wire-recorder';
import type { WireExchange } from '../../../../shared/runtime/wire';
import { wireFactsOf } from '../../../../shared/runtime/wire-facts';
import { useTempDirs } from '../../../support/temp-dir';

const tempDir = useTempDirs();

const exchange = (fields: Partial<WireExchange>): WireExchange => ({
  at: '2026-12-05T00:00:00.000Z',
  method: 'POST',
  path: '/v1/messages',
  outcome: 'refused',
  refusal: 'route_not_allowed',
  status: null,
  requested_model: null,
  served_model: null,
  input_tokens: null,
  output_tokens: null,
  first_byte_ms: null,
  duration_ms: 1,
  ...fields,
});

// An attacker's read (issue 28): refused requests cost nothing, and past the cap nothing more was written.
describe('the wire record and the denials, flooded with refused requests', () => {
  it('still records what the provider answered and the refusal that decided the branch', () => {
    const file = path.join(tempDir(), 'wire.jsonl');
    const record = wireRecorder(file);
    for (let i = 0; i < MAX_RECORDED_EXCHANGES; i += 1) record(exchange({ path: '/nope' }));
    record(exchange({ outcome: 'completed', refusal: null, status: 200, requested_model: 'm', served_model: 'other-model', input_tokens: 900, output_tokens: 100 }));
    record(exchange({ refusal: 'mcp_servers_refused' }));
    record(exchange({ refusal: 'budget_exceeded' }));
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as WireExchange);
    const facts = wireFactsOf(lines);
    expect(lines.some((line) => line.refusal === 'mcp_servers_refused')).toBe(true);
    expect(facts).toMatchObject({ served_models: ['other-model'], input_tokens: 900, output_tokens: 100, budget_exceeded: true });
  });

  it('journals a denial of another reason after a flood of one', () => {
    const file = path.join(tempDir(), 'egress-denials.jsonl');
    const deny = denialRecorder(file);
    for (let i = 0; i < MAX_RECORDED_DENIALS + 10; i += 1) deny({ host: 'api.example', port: 443, reason: 'path_not_allowed', method: 'GET', path: `/x${i}` });
    deny({ host: 'api.example', port: 443, reason: 'mcp_servers_refused', method: 'POST', path: '/v1/messages' });
    const reasons = readFileSync(file, 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { reason: string }).reason);
    expect(reasons).toHaveLength(MAX_RECORDED_DENIALS + 1);
    expect(reasons.at(-1)).toBe('mcp_servers_refused');
  });
});
