/**
 * Issue 28 in the Fork view: the model proof says where the observed model came from (the wire, or
 * the runtime as the secondary source) and any disagreement; the branch panel's gateway section
 * shows the wire facts and the recorded refusals; tokens come from the wire beside the runtime's.
 */
import { render } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import GatewayWitness from '../../renderer/src/components/GatewayWitness.svelte';
import ModelProof from '../../renderer/src/components/ModelProof.svelte';
import Telemetry from '../../renderer/src/components/Telemetry.svelte';
import { modelProof } from '../../shared/fork/model-proof';
import { wireFactsOf } from '../../shared/runtime/wire-facts';
import { telemetry } from './support/fixtures';
import { wireExchange } from '../support/wire-exchange';

const fact = (container: HTMLElement, name: string): HTMLElement => {
  const element = container.querySelector<HTMLElement>(`[data-fact="${name}"]`);
  if (element === null) throw new Error(`no ${name} fact`);
  return element;
};

describe('the wire in the Fork view', () => {
  it('a served model other than requested: failed, observed from the gateway, the runtime disagreeing', () => {
    const wire = wireFactsOf([wireExchange({ served_model: 'claude-haiku-4-5' })]);
    const model = modelProof({ model: 'claude-sonnet-4-5', local_provider: null }, telemetry({ observed_model: 'claude-sonnet-4-5', observed_model_source: 'claude_result_model_usage' }), wire);
    const { container } = render(ModelProof, { props: { model } });
    expect(fact(container, 'observed')).toHaveTextContent('claude-haiku-4-5');
    expect(fact(container, 'status')).toHaveTextContent(/^failed$/);
    expect(fact(container, 'source')).toHaveTextContent("the provider's answer, seen by Citadel's gateway");
    expect(fact(container, 'warnings')).toHaveTextContent('the runtime reported another model than the gateway saw');
  });

  it('shows the wire facts and the refusals as recorded, whatever their reason', () => {
    const wire = wireFactsOf([wireExchange(), wireExchange({ outcome: 'refused', refusal: 'budget_exceeded', status: null, served_model: null, input_tokens: null, output_tokens: null })]);
    const { container } = render(GatewayWitness, {
      props: { wire, refusals: [{ reason: 'mcp_servers_refused', host: 'api.anthropic.com', port: 443, method: 'POST', path: '/v1/messages', count: 2 }] },
    });
    expect(fact(container, 'wire')).toHaveTextContent('2 requests (1 completed, 1 refused); served claude-sonnet-4-5; 100 in / 20 out tokens; token budget exceeded');
    expect(fact(container, 'refusals')).toHaveTextContent('mcp_servers_refused POST api.anthropic.com:443/v1/messages (x2)');
  });

  it("shows the wire's tokens, and the runtime's beside them", () => {
    const wire = wireFactsOf([wireExchange(), wireExchange({ output_tokens: null })]);
    const { container } = render(Telemetry, { props: { telemetry: telemetry({ input_tokens: 7, output_tokens: 3 }), durationMs: 1000, wire } });
    expect(fact(container, 'wire-input-tokens')).toHaveTextContent('at least 200');
    expect(container).toHaveTextContent('7 in / 3 out');
  });
});
