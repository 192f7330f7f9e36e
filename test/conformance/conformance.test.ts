/**
 * The shared runtime conformance suite (spec/adapters-and-safety.md, "Runtimes are plug-ins"):
 * the same assertions for every case in registry.ts, plus the check that every registered adapter
 * has exactly one case.
 */
import { chmod, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runtimeReadiness } from '../../main/orchestrator/readiness';
import { BUILTIN_ADAPTERS } from '../../main/runtimes/registry';
import type { FinishedRun } from '../../main/runtimes/adapter-contract/runtime-adapter';
import type { RuntimeProfile } from '../../shared/executors/runtime-profile';
import { RuntimeReadinessSchema } from '../../shared/runtime/readiness';
import { ParsedRuntimeOutputSchema, UNKNOWN_TELEMETRY, type FailureCode, type ParsedRuntimeOutput } from '../../shared/runtime/telemetry';
import { useTempDirs } from '../support/temp-dir';
import { completenessProblems } from './completeness';
import { TRANSCRIPT_KINDS, type ConformanceCase, type ProfileOptions, type TranscriptKind } from './cases/conformance-case';
import { acceptedCombinations, combinationKey } from './option-space';
import { CONFORMANCE_ADAPTERS, CONFORMANCE_CASES } from './registry';

const tempDir = useTempDirs();

/** Failure codes an adapter may conclude from a runtime's own report of a failure. */
const REPORTED_FAILURES: readonly FailureCode[] = ['RUNTIME_AUTH_FAILED', 'RUNTIME_API_ERROR', 'RUNTIME_PROVIDER_UNAVAILABLE', 'RUNTIME_EXITED_NONZERO'];

/** What every transcript of a kind must satisfy, on top of its case's exact expected parse. */
const INVARIANTS: Readonly<Record<TranscriptKind, (run: FinishedRun, parsed: ParsedRuntimeOutput) => void>> = {
  success: (_run, parsed) => expect(parsed).toMatchObject({ succeeded: true, failure_code: null }),
  failure: (_run, parsed) => {
    expect(parsed.succeeded).toBe(false);
    expect(REPORTED_FAILURES).toContain(parsed.failure_code);
  },
  interleaved: (run, parsed) => {
    expect(run.stderr.trim(), 'an interleaved transcript carries stderr noise').not.toBe('');
    expect(parsed).toMatchObject({ succeeded: true, failure_code: null });
    expect(parsed.warnings).toContain('stderr_output');
  },
  truncated: (run, parsed) => {
    expect(run.stdout.trim(), 'a truncated transcript has output to cut').not.toBe('');
    expect(parsed).toMatchObject({ succeeded: false, failure_code: 'RUNTIME_OUTPUT_UNPARSABLE' });
  },
  cancelled: (run, parsed) => {
    expect(run).toMatchObject({ exitCode: null, signal: expect.any(String) });
    expect(parsed.succeeded).toBe(false);
    // A kill is never a success, and always the same code, even when it cut the output mid-line.
    expect(parsed.failure_code).toBe('RUNTIME_EXITED_NONZERO');
  },
  missing_telemetry: (_run, parsed) => {
    // Unknown stays null: never 0, never the requested value.
    expect(parsed).toMatchObject({ succeeded: true, telemetry: UNKNOWN_TELEMETRY });
    expect(parsed.warnings).toContain('tokens_missing');
  },
};

describe('conformance cases', () => {
  it('cover every registered adapter exactly once, each under its own runtime id', () => {
    expect(completenessProblems(CONFORMANCE_CASES, CONFORMANCE_ADAPTERS)).toEqual([]);
    for (const [id, adapter] of Object.entries(BUILTIN_ADAPTERS)) expect(CONFORMANCE_ADAPTERS[id]).toBe(adapter);
    expect(Object.keys(CONFORMANCE_ADAPTERS).sort()).toEqual([...Object.keys(BUILTIN_ADAPTERS), 'conformance-echo'].sort());
  });
});

describe.each(CONFORMANCE_CASES.map((c) => [c.runtime, c] as const))('runtime %s', (_runtime, c) => {
  describe('canonical argv', () => {
    it('lists exactly one row for every option combination its profile schema accepts', () => {
      expect(c.models).toContain(null);
      expect(c.models.some((model) => model !== null)).toBe(true);
      const accepted = acceptedCombinations(c.adapter, c.models).map(combinationKey).sort();
      expect(c.argv.map((row) => combinationKey(row.options)).sort()).toEqual(accepted);
    });

    it('produces exactly each row’s argv, starting with the adapter’s executable', () => {
      for (const row of c.argv) {
        const invocation = c.adapter.invocation(profileOf(c, row.options));
        expect(invocation.executable).toBe(c.adapter.executable);
        expect([invocation.executable, ...invocation.args], combinationKey(row.options)).toEqual(row.argv);
      }
    });

    it('refuses another runtime’s profile and a profile its schema rejects', () => {
      const profile = profileOf(c, c.argv[0]!.options);
      expect(() => c.adapter.invocation({ ...profile, runtime: 'not-this-runtime' })).toThrow(TypeError);
      expect(() => c.adapter.invocation({ ...profile, adapter_options: { ...profile.adapter_options, conformance_unknown: true } })).toThrow(
        expect.objectContaining({ code: 'EXECUTOR_PROFILE_INVALID' }),
      );
    });
  });

  describe('transcripts', () => {
    it('has at least one transcript of every kind', () => {
      for (const kind of TRANSCRIPT_KINDS) expect(c.transcripts[kind].length, kind).toBeGreaterThan(0);
    });

    const transcripts = TRANSCRIPT_KINDS.flatMap((kind) => c.transcripts[kind].map((t) => [`${kind}: ${t.name}`, kind, t] as const));
    it.each(transcripts)('%s', async (_title, kind, transcript) => {
      const run = await transcript.run(await realpath(tempDir('citadel-conformance-')));
      const parsed = ParsedRuntimeOutputSchema.parse(await c.adapter.parseOutput(run));
      expect(parsed).toEqual(transcript.expected);
      INVARIANTS[kind](run, parsed);
      expect(parsed.telemetry.observed_model === null).toBe(parsed.telemetry.observed_model_source === null);
      expect(await c.adapter.parseOutput(run), 'parsing is deterministic').toEqual(parsed);
    });
  });

  describe('readiness', () => {
    it('has credential names of its own to report, and other credentials in the absent setup', () => {
      expect(c.readiness.authPresent.sources.length).toBeGreaterThan(0);
      for (const name of c.readiness.authPresent.sources) expect(c.adapter.credentialEnvNames).toContain(name);
      expect(Object.keys(c.readiness.authAbsent.env).length).toBeGreaterThan(0);
    });

    it.skipIf(process.platform === 'win32').each([
      [true, true],
      [true, false],
      [false, true],
      [false, false],
    ])('binary present: %s, authentication present: %s', async (binary, auth) => {
      const bin = await realpath(tempDir('citadel-conformance-bin-'));
      const executable = path.join(bin, c.adapter.executable);
      if (binary) await fakeExecutable(executable, c.readiness.versionLine);
      const env = { PATH: bin, ...(auth ? c.readiness.authPresent.env : c.readiness.authAbsent.env) };
      expect(RuntimeReadinessSchema.parse(await runtimeReadiness(c.adapter, env))).toEqual({
        runtime: c.runtime,
        executable: binary
          ? { name: c.adapter.executable, found: true, path: executable, via: 'path', version: c.readiness.versionLine, problem: null }
          : { name: c.adapter.executable, found: false, path: null, via: null, version: null, problem: `RUNTIME_NOT_FOUND: "${c.adapter.executable}" was not found on PATH (it installs from the npm package ${c.adapter.vendorPackage.name})` },
        credentials: auth ? { configured: true, sources: [...c.readiness.authPresent.sources].sort() } : { configured: false, sources: [] },
        // No HOME here, so no login file: the credential is the environment's key, or none at all.
        credential: expect.objectContaining({ kind: auth ? 'env_api_key' : 'missing', expires_at: null, refreshable: false }),
      });
    });
  });
});

function profileOf(c: ConformanceCase, options: ProfileOptions): RuntimeProfile {
  return { profile_id: 'conformance', runtime: c.runtime, ...options };
}

/** A stand-in named like the runtime's executable that prints its version line. */
async function fakeExecutable(file: string, versionLine: string): Promise<void> {
  if (versionLine.includes("'")) throw new Error('a version line with a quote cannot be embedded');
  await writeFile(file, `#!/bin/sh\nprintf '%s\\n' '${versionLine}'\n`);
  await chmod(file, 0o755);
}
