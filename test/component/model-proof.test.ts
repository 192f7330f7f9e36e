import { render, screen } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import { modelProof } from '../../shared/fork/model-proof';
import ModelProof from '../../renderer/src/components/ModelProof.svelte';
import { telemetry } from './support/fixtures';

const fact = (container: HTMLElement, name: string): HTMLElement => {
  const element = container.querySelector<HTMLElement>(`[data-fact="${name}"]`);
  if (element === null) throw new Error(`no ${name} fact`);
  return element;
};

describe('model proof display', () => {
  it('shows three distinct facts, each under its own label', () => {
    const { container } = render(ModelProof, {
      props: { model: modelProof({ model: 'claude-sonnet-4-5', local_provider: null }, telemetry({ observed_model: 'claude-sonnet-4-5', observed_model_source: 'claude_result_model_usage' })) },
    });
    const terms = [...container.querySelectorAll('dt')].map((dt) => dt.textContent);
    expect(terms).toEqual(['Requested', 'Observed', 'Proof status']);
    expect(fact(container, 'requested')).toHaveTextContent('claude-sonnet-4-5');
    expect(fact(container, 'observed')).toHaveTextContent('claude-sonnet-4-5');
    expect(fact(container, 'status')).toHaveTextContent(/^passed$/);
  });

  it('shows a missing observation as "unknown", never the requested model', () => {
    const { container } = render(ModelProof, {
      props: { model: modelProof({ model: 'qwen3-coder:30b', local_provider: 'ollama' }, telemetry({ observed_model: null })) },
    });
    expect(fact(container, 'requested')).toHaveTextContent('qwen3-coder:30b via Ollama');
    expect(fact(container, 'observed')).toHaveTextContent(/^unknown$/);
    expect(fact(container, 'observed')).not.toHaveTextContent('qwen3');
    expect(fact(container, 'status')).toHaveTextContent(/^unknown$/);
  });

  it('shows unknown for untrusted telemetry even when it names the requested model', () => {
    // Telemetry without a trusted source proves nothing (shared/fork/model-proof.ts).
    const { container } = render(ModelProof, {
      props: { model: modelProof({ model: 'gpt-5-codex', local_provider: null }, telemetry({ observed_model: 'gpt-5-codex', observed_model_source: null })) },
    });
    expect(fact(container, 'observed')).toHaveTextContent(/^unknown$/);
    expect(fact(container, 'status')).toHaveTextContent(/^unknown$/);
  });

  it('shows a mismatch as failed with both models', () => {
    const { container } = render(ModelProof, {
      props: { model: modelProof({ model: 'gpt-5-codex', local_provider: null }, telemetry({ observed_model: 'gpt-4.1', observed_model_source: 'codex_rollout_turn_context' })) },
    });
    expect(fact(container, 'requested')).toHaveTextContent('gpt-5-codex');
    expect(fact(container, 'observed')).toHaveTextContent('gpt-4.1');
    expect(fact(container, 'status')).toHaveTextContent(/^failed$/);
  });

  it('shows a legacy profile as requesting the default model', () => {
    render(ModelProof, { props: { model: modelProof({ model: null, local_provider: null }, null) } });
    expect(screen.getByText('default')).toBeInTheDocument();
    expect(screen.getAllByText('unknown')).toHaveLength(2);
  });
});
