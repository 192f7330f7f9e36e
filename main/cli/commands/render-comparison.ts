import type { Comparison, ComparedBranch } from '../../../shared/fork/compare';
import { describeContainment, type ContainmentShown } from '../../../shared/fork/containment-display';
import { describeRequiredEvidence } from '../../../shared/fork/required-evidence';
import { describeWire } from '../../../shared/fork/wire-display';

const show = (value: number | null, unit = ''): string => (value === null ? 'unknown' : `${value}${unit}`);

/** Cost and speed are shown, and labelled as not deciding. */
export function renderComparison(comparison: Comparison): string {
  const lines = [
    `outcome: ${comparison.outcome}${comparison.recommended_branch_id ? ` -> ${comparison.recommended_branch_id}` : ''}`,
    ...comparison.reasons.map((r) => `  ${r}`),
    '',
  ];
  for (const b of comparison.branches) {
    lines.push(
      `${b.branch_id} (${b.runtime})  ${b.comparable ? 'comparable' : 'NOT comparable'}  receipt ${b.receipt_verified ? 'verified' : 'NOT verified'}${b.reasons.includes('signer_untrusted') ? '  signer UNTRUSTED' : ''}`,
      `  verifier ${b.verifier_status} (${describeRequiredEvidence(b.required_evidence)})${b.failure_code ? `  ${b.failure_code}` : ''}`,
      `  model requested ${b.model.requested_model}${b.model.requested_provider ? ` via ${b.model.requested_provider}` : ''}, observed ${b.model.observed_model ?? 'unknown'}${b.model.observed_model_source === 'gateway_wire' ? ' (on the wire)' : ''}, proof ${b.model_proof}`,
      ...(b.wire === null ? [] : [`  gateway ${describeWire(b.wire)}`]),
      `  containment ${marked(describeContainment(b.containment, b.receipt_verified))}`,
      `  diff ${show(b.files_changed)} files +${show(b.insertions)} -${show(b.deletions)}`,
      `  not deciding: duration ${show(b.duration_ms, ' ms')}, cost ${b.cost_usd === null ? 'unknown' : `$${b.cost_usd}`}, tokens ${tokens(b)}`,
      ...(b.reasons.length ? [`  reasons: ${b.reasons.join(', ')}`] : []),
      ...(b.warnings.length ? [`  warnings: ${b.warnings.join(', ')}`] : []),
    );
  }
  return `${lines.join('\n')}\n`;
}

function tokens(b: ComparedBranch): string {
  if (b.input_tokens === null && b.output_tokens === null) return 'unknown';
  return `${show(b.input_tokens)} in / ${show(b.output_tokens)} out${b.tokens_source === 'gateway_wire' ? ' (counted on the wire)' : ''}`;
}

/** A terminal has no amber: the weaker mode is flagged in words. */
export function marked(shown: ContainmentShown): string {
  return shown.amber ? `${shown.text} [WEAKER]` : shown.text;
}
