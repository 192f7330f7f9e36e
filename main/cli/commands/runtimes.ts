import { credentialSummary } from '../../../shared/runtime/credential-words';
import type { ReadinessReport } from '../../../shared/runtime/readiness';
import type { SandboxReadiness } from '../../../shared/sandbox/sandbox-readiness';
import { hostAdapters } from '../../host/open-context';
import { readiness } from '../../orchestrator';
import { printJson, type Io } from '../io/output';

/** Reads only the adapters and the environment: no fork root or key store is opened. */
export async function runtimesCommand(io: Io, options: { json: boolean }): Promise<void> {
  const report = await readiness({ adapters: hostAdapters(), env: process.env });
  if (options.json) printJson(io, report);
  else io.stdout(renderReadiness(report));
}

export function renderReadiness(report: ReadinessReport, nowMs: number = Date.now()): string {
  const lines: string[] = [];
  for (const r of report.runtimes) {
    const exe = r.executable.found ? `${r.executable.path} (${r.executable.version ?? 'version unknown'})` : `not found: ${r.executable.problem}`;
    lines.push(`${r.runtime}: ${exe}`, `  credential: ${credentialSummary(r.credential, nowMs)}`);
  }
  for (const p of report.local_providers) {
    const state = p.reachable ? `${p.models.length} model(s)${p.models.length ? `: ${p.models.join(', ')}` : ''}` : 'not answering';
    lines.push(`${p.provider} at ${p.base_url}: ${state}${p.problem ? ` (${p.problem})` : ''}`);
  }
  if (report.local_providers.every((p) => !p.reachable)) lines.push('Neither Ollama nor LM Studio answers: local-model profiles cannot run until one does.');
  if (report.sandbox) lines.push(...renderSandbox(report.sandbox));
  return `${lines.join('\n')}\n`;
}

/** Containment is what `fork start` needs by default: say what is missing and what provides it. */
function renderSandbox(sandbox: SandboxReadiness): string[] {
  const name = sandbox.backend ?? 'none for this platform';
  if (sandbox.ready) return [`containment: ${name} ready, ${sandbox.executable ?? 'executable unknown'} (${sandbox.version ?? 'version unknown'})`];
  return [
    `containment: ${name} NOT ready: ${sandbox.problem ?? 'unknown problem'}`,
    ...(sandbox.install ? [`  install: ${sandbox.install}`] : []),
    '  fork start refuses with SANDBOX_UNAVAILABLE unless --containment runtime-only (weaker) is chosen',
  ];
}
