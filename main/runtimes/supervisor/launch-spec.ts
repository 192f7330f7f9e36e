import path from 'node:path';
import { z } from 'zod';
import { EgressBridgeSpecSchema } from '../../sandbox/egress/egress-bridge-spec';
import { GatewaySpecSchema } from '../../sandbox/gateway/gateway-spec';

/** setTimeout fires at once for delays above 2^31 - 1 ms, so longer timers are refused rather than misfired. */
export const MAX_TIMER_MS = 2_147_483_647;

// spawn() refuses NUL bytes in argv and env; refusing them here turns a crash into a validation error.
const TextSchema = z.string().refine((text) => !text.includes('\0'), { message: 'must not contain NUL', params: { rule: 'nul_byte' } });
const AbsolutePathSchema = TextSchema.refine((file) => path.isAbsolute(file), {
  message: 'must be an absolute path',
  params: { rule: 'not_absolute' },
});

/** Each runtime log keeps at most this much of a run; the rest is counted, not written (issue 12). */
export const DEFAULT_OUTPUT_CAP_BYTES = 64 * 1024 * 1024;
/** A runtime needs a descriptor or two (a seccomp program); more is a mistake, not a need. */
const MAX_EXTRA_FDS = 8;

/** What the detached supervisor runs: one runtime child, its files, and its time limit. */
export const LaunchSpecSchema = z.strictObject({
  command: TextSchema.min(1),
  args: z.array(TextSchema),
  cwd: AbsolutePathSchema,
  /** The runtime's whole environment: nothing is inherited (decisions D6). */
  env: z.record(z.string().regex(/^[^=\0]+$/), TextSchema),
  stdin_file: AbsolutePathSchema,
  stdout_file: AbsolutePathSchema,
  stderr_file: AbsolutePathSchema,
  status_file: AbsolutePathSchema,
  timeout_ms: z.int().positive().max(MAX_TIMER_MS),
  kill_grace_ms: z.int().nonnegative().max(MAX_TIMER_MS),
  /** Absent or null: the run has no egress bridge (uncontained, or contained with no network). */
  egress_bridge: EgressBridgeSpecSchema.nullable().optional(),
  /** Absent or null: no provider gateway (issue 28); with one, it is the run's only egress and egress_bridge is null. */
  gateway: GatewaySpecSchema.nullable().optional(),
  /** Each log's cap for this run; absent: DEFAULT_OUTPUT_CAP_BYTES. */
  output_cap_bytes: z.int().positive().optional(),
  /** Opened read-only and handed to the runtime as fds 3, 4, … (e.g. a bwrap --seccomp program). */
  extra_fd_files: z.array(AbsolutePathSchema).max(MAX_EXTRA_FDS).optional(),
}).refine((spec) => !(spec.egress_bridge && spec.gateway), { message: 'a run has one egress: a bridge or a gateway, not both', params: { rule: 'one_egress' } });
export type LaunchSpec = z.infer<typeof LaunchSpecSchema>;
