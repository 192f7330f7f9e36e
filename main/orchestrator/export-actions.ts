import { proofProjection as projectProof } from '../../shared/publish/proof';
import { ProofReportSchema, ReplaySchema, type ProofProjection } from '../../shared/publish/replay';
import type { OrchestratorContext } from '../host/context';
import { buildProof } from '../publish/build-proof';
import { buildReplay } from '../publish/build-replay';
import { renderPublic, writePublic, type PublicArtifact } from '../publish/export-public';

/** The deterministic, redacted public replay; written to `file` too when one is named. */
export async function exportReplay(ctx: OrchestratorContext, forkId: string, file?: string): Promise<PublicArtifact> {
  return written(await renderPublic(await buildReplay(ctx, forkId), ReplaySchema), file);
}

/** The bounded proof report with its embedded replay; written to `file` too when one is named. */
export async function exportProof(ctx: OrchestratorContext, forkId: string, file?: string): Promise<PublicArtifact> {
  return written(await renderPublic(await buildProof(ctx, forkId), ProofReportSchema), file);
}

/** Mission Control's bounded summary of the proof report. */
export async function proofProjection(ctx: OrchestratorContext, forkId: string): Promise<ProofProjection> {
  return projectProof(await buildProof(ctx, forkId));
}

async function written(artifact: PublicArtifact, file: string | undefined): Promise<PublicArtifact> {
  if (file !== undefined) await writePublic(artifact, file);
  return artifact;
}
