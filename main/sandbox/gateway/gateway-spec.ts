import path from 'node:path';
import { z } from 'zod';
import { GatewayRuleSchema } from '../../../shared/sandbox/containment-policy';
import { CredentialGrantSchema } from '../../runtimes/credentials/credential-grant';
import { socketPathProblem } from '../egress/socket-path';

/**
 * The host half of a contained run's provider gateway (issue 28), as the supervisor serves it from
 * before the spawn until the runtime's process group is gone: the contract's rule, the socket the
 * sandbox's inner bridge reaches it on, the placeholder the sandbox holds, the real credential, the
 * token budget, and (for a TLS-terminated runtime) the per-attempt CA the gateway signs with.
 */
export const GatewaySpecSchema = z.strictObject({
  socket_path: z.string().superRefine((socket, ctx) => {
    const problem = path.isAbsolute(socket) ? socketPathProblem(socket) : 'the gateway socket needs an absolute path';
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem, params: { rule: 'socket_path' } });
  }),
  rule: GatewayRuleSchema,
  /** The per-attempt random credential the sandbox holds; a request carrying anything else is refused. */
  placeholder: z.string().min(32).max(512),
  credential: CredentialGrantSchema,
  /** input + output tokens the provider may report before the gateway refuses further requests; null: no budget. */
  budget_tokens: z.int().positive().nullable(),
  /** PEM files of the attempt's CA (outside the sandbox; only the certificate is given to it), for `inside.kind === 'tls'`. */
  ca: z.strictObject({ cert_file: z.string().min(1), key_file: z.string().min(1) }).nullable(),
});
export type GatewaySpec = z.infer<typeof GatewaySpecSchema>;
