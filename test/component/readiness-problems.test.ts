import { describe, expect, it } from 'vitest';
import { readinessProblems } from '../../renderer/src/lib/explain';
import { ReadinessReportSchema } from '../../shared/runtime/readiness';

const report = ReadinessReportSchema.parse({
  runtimes: [{ runtime: 'codex', executable: { name: 'codex', found: true, path: '/usr/bin/codex', via: 'path', version: '0.169.0', problem: null }, credentials: { configured: false, sources: [] }, credential: { kind: 'missing', label: 'none found: set OPENAI_API_KEY or run `codex login`', expires_at: null, refreshable: false } }],
  local_providers: [{ provider: 'ollama', base_url: 'http://127.0.0.1:11434', reachable: true, version: '0.13.4', version_supported: true, models: [], problem: null }],
});

describe('readiness problems of a branch', () => {
  it('warns of a missing cloud credential for a branch that is to run or running', () => {
    expect(readinessProblems(report, 'codex', null, { credentials: true })).toEqual([
      'No provider credential for codex: none found: set OPENAI_API_KEY or run `codex login`.',
    ]);
  });

  it('does not warn of a credential for a local provider, which needs none', () => {
    expect(readinessProblems(report, 'codex', 'ollama', { credentials: true })).toEqual([]);
  });

  it('does not warn of a credential for a finished branch', () => {
    expect(readinessProblems(report, 'codex', null, { credentials: false })).toEqual([]);
  });
});
