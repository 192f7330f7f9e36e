/**
 * Review 31, findings 1 and 2: Gemini CLI, Qwen Code, OpenCode and Copilot CLI obey repository
 * config (a `.env` base URL, `opencode.json`, workspace settings) or approve every host shell
 * command, so without Citadel's sandbox and gateway the operator's real key could be sent anywhere.
 * `--containment runtime-only` is refused for them before any fork state exists, through the real
 * CLI as a child process and in the New Fork preview; Claude and Codex still run runtime-only.
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { StartPreview } from '../../../shared/fork/start-preview';
import { FIXED_SUM, ForkHarness } from '../../support/fork-harness';
import { serviceOver } from '../../support/service-context';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

const profile = (runtime: string, model: string) => ({ profile_id: `${runtime}-a`, runtime, model, local_provider: null, adapter_options: {} });
const CLAUDE = profile('claude', 'claude-sonnet-4-5');
const CODEX = profile('codex', 'gpt-5.1-codex-mini');
const REFUSED = [
  ['gemini', 'gemini-2.5-flash', /GOOGLE_GEMINI_BASE_URL/],
  ['qwen', 'qwen3-coder-plus', /OPENAI_BASE_URL/],
  ['opencode', 'gpt-5.1', /opencode\.json/],
  ['copilot', 'gpt-4.1-mini', /allow-all-tools approval/],
] as const;

function executorFile(h: ForkHarness, profiles: readonly unknown[]): string {
  const file = path.join(h.base, 'executors.json');
  writeFileSync(file, JSON.stringify({ schema_version: 2, executors: profiles }));
  return file;
}

const entries = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir) : []);

describe('runtime-only containment for a runtime that does not offer it', () => {
  it.each(REFUSED)('fork start refuses %s runtime-only before anything exists, naming it and why', async (runtime, model, why) => {
    const h = new ForkHarness(tempDir('citadel-runtime-only-'));
    await h.simulate({ edits: [{ path: 'src/sum.js', content: FIXED_SUM }] });
    const file = executorFile(h, [CLAUDE, profile(runtime, model)]);
    const { run, doc } = await h.startJson(['--executors', file, '--containment', 'runtime-only']);
    expect(run.code, run.stderr).toBe(1);
    expect(doc.error).toMatchObject({ code: 'RUNTIME_ONLY_NOT_OFFERED', details: { runtimes: { [runtime]: expect.stringMatching(why) } } });
    expect(doc.error?.message).toContain(`not offered for ${runtime},`);
    expect(doc.error?.message).toMatch(why);
    expect(doc.error?.message).not.toContain('claude');
    for (const dir of ['forks', 'worktrees', 'repositories']) expect(entries(path.join(h.root, dir)), dir).toEqual([]);
    expect(h.gitIn(h.repo, 'for-each-ref', '--format=%(refname)')).toBe('refs/heads/main');
  });

  it('Claude and Codex from a schema 2 file still run runtime-only', { timeout: 60_000 }, async () => {
    const h = new ForkHarness(tempDir('citadel-runtime-only-'));
    await h.simulate({ edits: [{ path: 'src/sum.js', content: FIXED_SUM }] });
    const { run, doc } = await h.startJson(['--executors', executorFile(h, [CLAUDE, CODEX]), '--containment', 'runtime-only', '--workflow', h.workflowFile]);
    expect(run.code, run.stderr).toBe(0);
    expect(doc.state).toBe('ready');
    const contract = h.readJson<{ containment: unknown }>(path.join(h.forkDir(doc.fork_id), 'contract.json'));
    expect(contract.containment).toEqual({ mode: 'runtime-only' });
  });

  it('the New Fork preview shows the refusal at the executors, with the argv still described; contained it is no problem', async () => {
    const h = new ForkHarness(tempDir('citadel-runtime-only-'));
    const { service } = await serviceOver(h);
    const preview = async (containment: 'auto' | 'runtime-only'): Promise<StartPreview> => {
      const request = {
        objective: 'Fix the sum function',
        repo: h.repo,
        executors: { kind: 'executors', profiles: [CLAUDE, profile('gemini', 'gemini-2.5-flash')] },
        workflow_file: h.workflowFile,
        budget_seconds: null,
        containment,
      };
      const reply = await service.handle('previewFork', request);
      if (!reply.ok) throw new Error(`the preview itself was refused: ${reply.error.code} ${reply.error.message}`);
      return reply.value;
    };
    const runtimeOnly = await preview('runtime-only');
    expect(runtimeOnly.ready).toBe(false);
    expect(runtimeOnly.fields.executors.problems).toEqual([{ code: 'RUNTIME_ONLY_NOT_OFFERED', message: expect.stringMatching(/^Runtime-only containment is not offered for gemini, .*GOOGLE_GEMINI_BASE_URL/) }]);
    expect(runtimeOnly.executors?.profiles.map((p) => p.runtime)).toEqual(['claude', 'gemini']);
    const contained = await preview('auto');
    expect(contained.fields.executors.problems).toEqual([]);
    expect(contained.ready).toBe(true);
  });
});
