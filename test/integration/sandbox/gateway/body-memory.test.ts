import { describe, expect, it } from 'vitest';
import type { GatewayRule } from '../../../../shared/sandbox/containment-policy';
import { call, eventually, PLACEHOLDER, scriptedUpstream, startTestGateway, useGatewayCleanup } from './harness';

useGatewayCleanup();

const rule = (upstream: string): GatewayRule => ({ kind: 'gateway', api: 'anthropic-messages', inside: { kind: 'http', port: 18080 }, upstream, routes: [{ method: 'POST', path: '/v1/messages' }], models: null });

// An attacker's read (issue 28): each of the 64 connections may hold a body of the full cap (32 MiB) while its
// answer is awaited, 2 GiB in the supervisor; past its memory the supervisor dies and the run's record with it.
describe('request bodies held by the gateway', () => {
  it('are bounded in total, not only one by one', async () => {
    const answers: (() => void)[] = [];
    const upstream = await scriptedUpstream((_seen, response) => {
      answers.push(() => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{}');
      });
    });
    const gateway = await startTestGateway(rule(upstream.origin), { maxBodyBytes: 1000 });
    const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x'.repeat(850) }] });
    const sent = Array.from({ length: 6 }, () => call(gateway, { path: '/v1/messages', headers: { 'x-api-key': PLACEHOLDER }, body }));
    await eventually(() => upstream.seen.length + gateway.exchanges.length >= 6 || gateway.exchanges.some((e) => e.refusal === 'body_too_large'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    for (const answer of answers.splice(0)) answer();
    const statuses = (await Promise.all(sent)).map((answer) => answer.status);
    expect(statuses).toContain(413);
    expect(upstream.seen.length).toBeLessThan(6);
    // Given back once answered: the next requests pass again.
    const seen = upstream.seen.length;
    const later = Array.from({ length: 4 }, () => call(gateway, { path: '/v1/messages', headers: { 'x-api-key': PLACEHOLDER }, body }));
    await eventually(() => upstream.seen.length === seen + 4);
    for (const answer of answers.splice(0)) answer();
    expect((await Promise.all(later)).map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
  });
});
