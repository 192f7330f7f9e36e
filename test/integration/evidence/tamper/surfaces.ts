import { canonicalJson } from '../../../../shared/canonical-json';
import { isCitadelError } from '../../../../shared/errors';
import { VERIFICATION_REASONS } from '../../../../shared/fork/compare';
import type { OrchestratorContext } from '../../../../main/host/context';
import { createMissionControlService, type MissionControl } from '../../../../main/mission-control/service';
import { compareFork, landingChecks, selectBranch } from '../../../../main/orchestrator';
import { buildProof } from '../../../../main/publish/build-proof';
import { buildReplay } from '../../../../main/publish/build-replay';
import { isObject, type Json } from './json-tree';
import { forget } from './verify-cache';

/**
 * Everything an operator or a reader of the fork is told, per surface, as JSON: each surface's
 * answer, or `{ error: CODE }` for a typed refusal, or `{ crash: message }` for anything else.
 */
export type Surfaces = Readonly<Record<SurfaceName, Json>>;
/** In the order they are asked: the cheapest checks first. */
export const SURFACES = ['compare', 'landing', 'select', 'proof', 'replay', 'mission_control'] as const;
export type SurfaceName = (typeof SURFACES)[number];

/** The same probe every time, so the selection key it derives is always the same (and never stored in a template). */
// Acknowledging the evidence, as an operator can: what is asked is whether the stored files allow a selection at all.
const PROBE = { actor: 'tamper-suite', reason: 'would this selection be allowed?', againstEvidence: true } as const;

async function answer(run: () => Promise<unknown>): Promise<Json> {
  try {
    return JSON.parse(canonicalJson(await run())) as Json;
  } catch (error) {
    if (isCitadelError(error)) return { error: error.code, ...(Array.isArray(error.details?.reasons) ? { reasons: error.details.reasons as Json } : {}) };
    return { crash: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}

/** Mission Control's reply, as the renderer gets it: the value, or the typed error code. */
async function reply(mc: MissionControl, channel: string, payload: unknown): Promise<Json> {
  const r = await mc.handle(channel, payload);
  return r.ok ? (JSON.parse(canonicalJson(r.value)) as Json) : r.error.code === 'INTERNAL_ERROR' ? { crash: r.error.message } : { error: r.error.code };
}

export interface SurfaceProbe {
  readonly ctx: OrchestratorContext;
  readonly mc: MissionControl;
  /** Set when a surface changed the fork folder (a selection recorded, a landing plan issued). */
  wrote: boolean;
}

/** A surface changed the fork folder: later answers must re-verify it. */
function wrote(probe: SurfaceProbe): void {
  probe.wrote = true;
  forget(probe.ctx.store);
}

export function surfaceProbe(ctx: OrchestratorContext): SurfaceProbe {
  return { ctx, mc: createMissionControlService(ctx, { log: () => undefined }), wrote: false };
}

/**
 * Asks the surfaces about the fork, one after another (several take the fork lock, and
 * `resumability` reports a held lock as `in_progress`), cheapest first. After each answer `enough`
 * is asked whether what was heard already decides the outcome (a typed refusal): then the rest
 * are not asked. Without it every surface answers.
 */
export async function observe(probe: SurfaceProbe, forkId: string, branchIds: readonly string[], enough: (heard: Partial<Surfaces>) => boolean = () => false): Promise<Partial<Surfaces>> {
  const { ctx, mc } = probe;
  const fork = { fork_id: forkId };
  const steps: Record<SurfaceName, () => Promise<Json>> = {
    compare: () => answer(() => compareFork(ctx, forkId)),
    // `fork land` without --confirm: every precondition, and a token (written as the issued plan) when all pass.
    landing: () =>
      answer(async () => {
        const result = await landingChecks(ctx, forkId);
        if (result.token !== null) wrote(probe);
        return result;
      }),
    // What `fork select` allows: the real selectBranch. It writes only when it allows the selection.
    select: async () => {
      const select: Record<string, Json> = {};
      for (const branchId of branchIds) {
        select[branchId] = await answer(async () => {
          await selectBranch(ctx, forkId, { branchId, ...PROBE });
          wrote(probe);
          return { allowed: true };
        });
      }
      return select;
    },
    proof: () => answer(() => buildProof(ctx, forkId)),
    replay: () => answer(() => buildReplay(ctx, forkId)),
    // The Fork view (status, resumability, proof summary, containment) and each branch panel.
    mission_control: async () => {
      const view: Record<string, Json> = {
        forkStatus: await reply(mc, 'forkStatus', fork),
        resumability: await reply(mc, 'resumability', fork),
        proofProjection: await reply(mc, 'proofProjection', fork),
        forkContainment: await reply(mc, 'forkContainment', fork),
      };
      for (const branchId of branchIds) view[`branchDetail ${branchId}`] = await reply(mc, 'branchDetail', { ...fork, branch_id: branchId });
      return view;
    },
  };
  const heard: Partial<Record<SurfaceName, Json>> = {};
  for (const name of SURFACES) {
    heard[name] = await steps[name]();
    if (enough(heard)) break;
  }
  return heard;
}

/** Per-run facts only: the fork root each working copy lives in. */
export function normalise<S extends Partial<Surfaces>>(surfaces: S, root: string): S {
  return JSON.parse(JSON.stringify(surfaces).split(root).join('<root>')) as S;
}

const REASONS: ReadonlySet<string> = new Set(VERIFICATION_REASONS);

/**
 * The typed refusals a surface states: error codes, verification reasons per branch, failed
 * landing checks, branches blocked with a code, a contract shown as unverified, a decision record
 * that does not stand (replay/proof `problem`). A mutation is
 * refused when it adds one of these; a change without one is silent.
 */
export function refusals(surfaces: Partial<Surfaces>): Set<string> {
  const out = new Set<string>();
  const visit = (surface: string, v: Json, where: string): void => {
    if (Array.isArray(v)) {
      for (const x of v) visit(surface, x, where);
      return;
    }
    if (!isObject(v)) {
      if (v === 'unverified') out.add(`${surface}:${where}:unverified`);
      return;
    }
    const branch = typeof v.branch_id === 'string' ? v.branch_id : where;
    if (typeof v.error === 'string') out.add(`${surface}:${branch}:error ${v.error}`);
    for (const key of ['reasons', 'verification_reasons'] as const) {
      const list = v[key];
      if (Array.isArray(list)) for (const r of list) if (typeof r === 'string' && REASONS.has(r)) out.add(`${surface}:${branch}:${r}`);
    }
    if (typeof v.blocked_code === 'string') out.add(`${surface}:${branch}:blocked ${v.blocked_code}`);
    // Replay and proof: a decision record that does not stand, said so (selection_unverified, landing_unverified).
    if (typeof v.problem === 'string' && v.problem.endsWith('_unverified')) out.add(`${surface}:${where}:${v.problem}`);
    if (typeof v.name === 'string' && v.ok === false) out.add(`${surface}:check ${v.name}`);
    for (const [key, child] of Object.entries(v)) visit(surface, child, typeof v.branch_id === 'string' ? v.branch_id : where === '' ? key : where);
  };
  for (const name of SURFACES) {
    const answer = surfaces[name];
    if (answer !== undefined) visit(name, answer, '');
  }
  return out;
}
