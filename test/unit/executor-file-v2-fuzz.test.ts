// Property tests for executor file schema 2 (issue 31 item 1). The oracle is restated here from the
// issue and each CLI's `--help`, not imported from the descriptors it checks.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalProfileOrder, executorSetDigest, profileDigest } from '../../shared/executors/executor-digests';
import { parseAnyExecutorFileText } from '../../shared/executors/validate-executor-file';

const PROFILE_ID = /^[a-z][a-z0-9-]{0,47}$/;
const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$/;
const PROVIDERS = ['ollama', 'lmstudio'] as const;

interface Contract {
  readonly options: Readonly<Record<string, readonly string[]>>;
  readonly bypass: Readonly<Record<string, readonly string[]>>;
  readonly localProviders: boolean;
}
const RUNTIMES: Readonly<Record<string, Contract>> = {
  claude: {
    options: { permission_mode: ['acceptEdits', 'auto', 'manual', 'dontAsk', 'plan'], effort: ['low', 'medium', 'high', 'xhigh', 'max'] },
    bypass: { permission_mode: ['bypassPermissions'] },
    localProviders: false,
  },
  codex: { options: { sandbox: ['read-only', 'workspace-write'] }, bypass: { sandbox: ['danger-full-access'] }, localProviders: true },
  gemini: { options: { approval_mode: ['default', 'auto_edit', 'plan'] }, bypass: { approval_mode: ['yolo'] }, localProviders: false },
  opencode: { options: {}, bypass: {}, localProviders: true },
  copilot: { options: {}, bypass: {}, localProviders: true },
  qwen: { options: { approval_mode: ['plan', 'default', 'auto-edit'] }, bypass: { approval_mode: ['yolo'] }, localProviders: true },
};
const IDS = Object.keys(RUNTIMES);

type Profile = { profile_id: string; runtime: string; model: string | null; local_provider: (typeof PROVIDERS)[number] | null; adapter_options: Record<string, string> };

const idArb = fc.stringMatching(PROFILE_ID);
const modelArb = fc.option(fc.stringMatching(MODEL_ID), { nil: null });

function runtimeProfileArb(runtime: string, contract: Contract): fc.Arbitrary<Profile> {
  const options = fc.record(
    Object.fromEntries(Object.entries(contract.options).map(([name, values]) => [name, fc.constantFrom(...values)])),
    { requiredKeys: [], noNullPrototype: true },
  );
  const local = contract.localProviders ? fc.option(fc.constantFrom(...PROVIDERS), { nil: null }) : fc.constant(null);
  return fc.record({ profile_id: idArb, model: modelArb, local_provider: local, adapter_options: options }).map((p): Profile => ({
    profile_id: p.profile_id,
    runtime,
    // A local provider needs an explicit model.
    model: p.local_provider !== null && p.model === null ? 'm' : p.model,
    local_provider: p.local_provider,
    adapter_options: p.adapter_options as Record<string, string>,
  }));
}
const profileArb = fc.oneof(...Object.entries(RUNTIMES).map(([runtime, contract]) => runtimeProfileArb(runtime, contract)));

const fileArb = fc.uniqueArray(profileArb, { minLength: 2, maxLength: 6, selector: (p) => p.profile_id }).map((executors) => ({ schema_version: 2, executors }));

describe('executor file schema 2 fuzz', () => {
  it('accepts every valid file unchanged, with order-free digests', () => {
    fc.assert(
      fc.property(fileArb, (file) => {
        const result = parseAnyExecutorFileText(JSON.stringify(file));
        expect(result.ok, JSON.stringify(!result.ok && result.error.violations)).toBe(true);
        if (!result.ok) return;
        expect(result.value).toStrictEqual(file);
        expect(executorSetDigest([...result.value.executors].reverse())).toBe(executorSetDigest(file.executors));
        expect(canonicalProfileOrder(result.value.executors).map(profileDigest)).toEqual(canonicalProfileOrder(file.executors).map(profileDigest));
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a bypass value as forbidden, and a local provider on a runtime without one, each at its exact path only', () => {
    const bypassable = IDS.filter((id) => Object.keys(RUNTIMES[id]!.bypass).length > 0);
    const providerless = IDS.filter((id) => !RUNTIMES[id]!.localProviders);
    const mutation = fc.oneof(
      fc.record({ kind: fc.constant('bypass' as const), runtime: fc.constantFrom(...bypassable) }),
      fc.record({ kind: fc.constant('provider' as const), runtime: fc.constantFrom(...providerless), provider: fc.constantFrom(...PROVIDERS) }),
    );
    fc.assert(
      fc.property(fileArb, fc.nat(), mutation, (file, i, m) => {
        const at = i % file.executors.length;
        const base: Profile = { profile_id: file.executors[at]!.profile_id, runtime: m.runtime, model: 'm', local_provider: null, adapter_options: {} };
        let expected: { path: string; rule: string };
        if (m.kind === 'bypass') {
          const [option, values] = Object.entries(RUNTIMES[m.runtime]!.bypass)[0]!;
          base.adapter_options = { [option]: values[0]! };
          expected = { path: `$.executors[${at}].adapter_options.${option}`, rule: 'forbidden_value' };
        } else {
          base.local_provider = m.provider;
          expected = { path: `$.executors[${at}].local_provider`, rule: 'provider_not_supported' };
        }
        file.executors[at] = base;
        const result = parseAnyExecutorFileText(JSON.stringify(file));
        expect(result.ok).toBe(false);
        if (result.ok) return;
        expect(result.error.code).toBe('EXECUTOR_FILE_INVALID');
        expect(result.error.violations?.map((v) => ({ path: v.path, rule: v.rule }))).toEqual([expected]);
      }),
      { numRuns: 300 },
    );
  });
});
