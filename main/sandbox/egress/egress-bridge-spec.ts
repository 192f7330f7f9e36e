import path from 'node:path';
import { z } from 'zod';
import { EgressRuleSchema } from '../../../shared/sandbox/containment-policy';
import type { EgressTarget } from './egress-target';
import { socketPathProblem } from './socket-path';

/**
 * The host half of a contained run's egress (issue 11): which socket to serve, and the one target
 * behind it. containedCommand produces it; the supervisor serves it (startHostBridge) from before the
 * spawn until the runtime's process group is gone, since it outlives the CLI.
 */
export const EgressBridgeSpecSchema = z.strictObject({
  socket_path: z.string().superRefine((socket, ctx) => {
    const problem = path.isAbsolute(socket) ? socketPathProblem(socket) : 'the bridge socket needs an absolute path';
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem, params: { rule: 'socket_path' } });
  }),
  target: EgressRuleSchema.refine((rule): rule is EgressTarget => rule.kind !== 'none', { message: 'an egress of "none" has no bridge', params: { rule: 'no_bridge' } }),
});
export type EgressBridgeSpec = z.infer<typeof EgressBridgeSpecSchema>;
