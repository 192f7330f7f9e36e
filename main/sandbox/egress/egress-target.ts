import type { EgressRule } from '../../../shared/sandbox/containment-policy';

/** An egress that goes through the bridge: every containment egress rule but `none`. */
export type EgressTarget = Exclude<EgressRule, { kind: 'none' }>;
