/**
 * Issue 31: a whole fork through Citadel's real CLI with the REAL Gemini CLI 0.61.0 as both
 * executors, contained, against a scripted Gemini API on loopback reached only through the provider
 * gateway. Proves the canonical argv and the runtime-home settings are accepted, the scripted
 * write_file calls edit each branch's own worktree, the verifier judges them, the gateway swapped the
 * placeholder for the operator's key, and the model proof comes from the wire. A yolo profile is
 * refused before any state exists.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { digestOf } from '../../shared/digest';
import { branch, BUGGY_SUM, FIXED_SUM, WRONG_SUM } from '../support/fork-harness';
import type { RecordingServer } from '../support/model-servers/recording-server';
import { startGeminiServer, type GeminiTurn } from './gemini-scripted-server';
import { notesFor } from './scripted-agents';
import { useVendorTempDirs, VendorFork, type Profile } from './vendor-fork';

const tempDir = useVendorTempDirs();
const servers: RecordingServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const OPERATOR_KEY = 'AIza-operator-test-dummy';
const FLASH: Profile = { profile_id: 'gemini-flash', runtime: 'gemini', model: 'gemini-2.5-flash', local_provider: null, adapter_options: { approval_mode: 'auto_edit' } };
const PRO: Profile = { profile_id: 'gemini-pro', runtime: 'gemini', model: 'gemini-2.5-pro', local_provider: null, adapter_options: {} };

/** branch-gemini-flash fixes sum.js and writes its note; branch-gemini-pro writes a wrong fix. */
function script(workspace: string): readonly GeminiTurn[] {
  const branchId = path.basename(workspace);
  const write = (file: string, content: string) => ({ name: 'write_file', args: { file_path: path.join(workspace, file), content } });
  if (branchId === 'branch-gemini-pro') return [{ text: 'Rewriting sum.', call: write('src/sum.js', WRONG_SUM) }, { text: 'Done.' }];
  return [{ text: 'Fixing the operator.', call: write('src/sum.js', FIXED_SUM) }, { text: 'Writing a note.', call: write('NOTES.md', notesFor(branchId)) }, { text: 'Fixed sum().' }];
}

describe('real Gemini CLI through citadel fork start', () => {
  it('two contained Gemini branches edit their own worktrees through the gateway; verifier, receipts and wire model proof hold', async () => {
    const fork = new VendorFork(tempDir());
    const server = await startGeminiServer(script);
    servers.push(server);
    const doc = await fork.start([FLASH, PRO], { GEMINI_API_KEY: OPERATOR_KEY, GOOGLE_GEMINI_BASE_URL: server.origin });
    const id = doc.fork_id;
    expect(doc.state).toBe('ready');
    expect(branch(doc, 'branch-gemini-flash')).toMatchObject({ state: 'passed', failure_code: null });
    expect(branch(doc, 'branch-gemini-pro')).toMatchObject({ state: 'failed', failure_code: 'VERIFIER_FAILED' });

    // The real CLI accepted exactly the canonical argv that `executors validate` prints.
    const validated = await fork.cli(['executors', 'validate', path.join(fork.base, 'executors.json'), '--json']);
    for (const profile of (JSON.parse(validated.stdout) as { profiles: { branch_id: string; argv: string[] }[] }).profiles) {
      expect(fork.branchRun(id, profile.branch_id).receipt.argv_digest, profile.branch_id).toBe(digestOf(profile.argv));
    }

    // Each edit landed in its own worktree and Citadel's result commit, and nowhere else.
    expect(fork.git(fork.repo, 'status', '--porcelain')).toBe('');
    expect(readFileSync(path.join(fork.repo, 'src', 'sum.js'), 'utf8')).toBe(BUGGY_SUM);
    const flashTree = fork.worktree(id, 'branch-gemini-flash');
    expect(readFileSync(path.join(flashTree, 'src', 'sum.js'), 'utf8')).toBe(FIXED_SUM);
    expect(readFileSync(path.join(flashTree, 'NOTES.md'), 'utf8')).toBe(notesFor('branch-gemini-flash'));
    expect(readFileSync(path.join(fork.worktree(id, 'branch-gemini-pro'), 'src', 'sum.js'), 'utf8')).toBe(WRONG_SUM);
    expect(existsSync(path.join(fork.worktree(id, 'branch-gemini-pro'), 'NOTES.md'))).toBe(false);
    expect(readdirSync(fork.outside)).toEqual([]);

    for (const [branchId, model, verifier] of [
      ['branch-gemini-flash', 'gemini-2.5-flash', 'passed'],
      ['branch-gemini-pro', 'gemini-2.5-pro', 'failed'],
    ] as const) {
      const { receipt, stdout } = fork.branchRun(id, branchId);
      expect(receipt.containment?.mode, branchId).toBe('contained');
      expect(receipt.exit.code, branchId).toBe(0);
      expect(receipt.verifier.status, branchId).toBe(verifier);
      expect(receipt.telemetry, branchId).toMatchObject({ observed_model: model, observed_model_source: 'gemini_result_stats_models' });
      expect(stdout, branchId).not.toContain(OPERATOR_KEY);
    }
    expect(fork.branchRun(id, 'branch-gemini-flash').receipt.telemetry).toMatchObject({ input_tokens: 963, output_tokens: 162 });

    // Only the streamed generation reached the provider, each with the operator's key the gateway put in.
    const requests = server.requests();
    expect(requests.length).toBe(5);
    for (const request of requests) {
      expect(request.method).toBe('POST');
      expect(request.url).toMatch(/^\/v1beta\/models\/gemini-2\.5-(flash|pro):streamGenerateContent\?alt=sse$/);
      expect(request.headers['x-goog-api-key']).toBe(OPERATOR_KEY);
    }

    const compare = await fork.compare(id);
    expect(compare.outcome).toBe('recommend');
    for (const b of compare.branches) expect(b, b.branch_id).toMatchObject({ comparable: true, receipt_verified: true, model_proof: 'passed' });
    const human = await fork.cli(['fork', 'compare', id]);
    expect(human.stdout).toContain('observed gemini-2.5-flash (on the wire), proof passed');
  });

  it('refuses a yolo profile before any fork state exists', async () => {
    const fork = new VendorFork(tempDir());
    const yolo = { ...FLASH, profile_id: 'gemini-yolo', adapter_options: { approval_mode: 'yolo' } };
    await expect(fork.start([FLASH, yolo], { GEMINI_API_KEY: OPERATOR_KEY })).rejects.toThrow(/EXECUTOR_FILE_INVALID[\s\S]*approval_mode/);
    expect(existsSync(fork.harness.root) ? readdirSync(fork.harness.root) : []).toEqual([]);
    expect(fork.git(fork.repo, 'worktree', 'list').split('\n')).toHaveLength(1);
  });
});
