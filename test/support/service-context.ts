import path from 'node:path';
import { openOrchestratorContext } from '../../main/host/open-context';
import { createMissionControlService, type MissionControl } from '../../main/mission-control/service';
import type { OrchestratorContext } from '../../main/host/context';
import type { ForkEvent } from '../../shared/fork/events';
import type { ChannelName, ChannelResponse, Reply } from '../../shared/ipc/contract';
import type { ForkHarness } from './fork-harness';
import { REPO_ROOT } from './run-cli';

export const BUILT_SUPERVISOR = path.join(REPO_ROOT, 'out', 'cli', 'supervisor.mjs');

export interface ServiceUnderTest {
  readonly ctx: OrchestratorContext;
  readonly service: MissionControl;
  /** What the service logged (background failures, internal errors). */
  readonly logs: string[];
  /** What reached the context's own sink, beside the subscribers. */
  readonly sinkEvents: ForkEvent[];
}

/**
 * A real orchestrator context on the harness's fork root, with the file key store and the
 * harness's simulated runtimes first on PATH, and the service built over it.
 */
export async function serviceOver(h: ForkHarness, supervisorScript = BUILT_SUPERVISOR): Promise<ServiceUnderTest> {
  const sinkEvents: ForkEvent[] = [];
  const ctx = await openOrchestratorContext({
    env: h.env({ CITADEL_KEYSTORE: 'file' }),
    supervisorScript,
    events: (event) => void sinkEvents.push(event),
  });
  const logs: string[] = [];
  return { ctx, service: createMissionControlService(ctx, { log: (line) => void logs.push(line) }), logs, sinkEvents };
}

/** A channel's reply value; a refusal fails the test with its error. */
export function value<C extends ChannelName>(reply: Reply<C>): ChannelResponse<C> {
  if (!reply.ok) throw new Error(`expected a value, got ${JSON.stringify(reply.error)}`);
  return reply.value;
}

/** The first event the service publishes that `match` accepts. */
export function firstEvent(service: MissionControl, match: (event: ForkEvent) => boolean): Promise<ForkEvent> {
  return new Promise((resolve) => {
    const unsubscribe = service.subscribe((event) => {
      if (!match(event)) return;
      unsubscribe();
      resolve(event);
    });
  });
}
