/**
 * Issue 29, output where the decision is made: a real fork's verifier and setup output, and its
 * runtime's, read back through the Mission Control channels (branchOutput, branchLog) and the
 * CLI's `fork logs`: bounded tails, redacted by the live trail's rules, the log that explains
 * each failure named; kept privately (0600), never in the replay or the proof.
 */
import { statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { OUTPUT_TAIL_MAX_LINES } from '../../../shared/fork/branch-output';
import { branch, FIXED_SUM, ForkHarness, WORKFLOW, WRONG_SUM } from '../../support/fork-harness';
import { serviceOver, value } from '../../support/service-context';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const FILE_KEYS = { CITADEL_KEYSTORE: 'file' };
const START = ['--runtimes', 'claude,codex', '--containment', 'runtime-only'];

// Built from parts, so no file of the repository holds either whole.
const PROVIDER_KEY = ['sk-ant-api03', 'Qw7rT2zX9kLm4NpV8bYc3HdJ6fGs1AeU5oWi0RqZx7CvBn2MlKj4HgFd9SaPo3IuY6TrEw1Qz8XcVb5NmLk7Jh2'].join('-');
const GITHUB_TOKEN = ['ghp', 'R8mZq2LwX7vT4nKc9YbH3sJd6PfG1aEu5oWi'].join('_');
const NPM_TOKEN = ['npm', 'T4kWq9ZrX2mLb7VnC5yHs3Jd8PfG6aEu1oQi'].join('_');
const HIDDEN = '[citadel: this line is hidden: it looks like it holds a secret]';

/** The workflow's verifier: 300 lines of progress, two secrets, then the assertion that fails on a wrong sum. */
const CHECK = [
  "import { sum } from '../src/sum.js';",
  'for (let i = 1; i <= 300; i++) console.log(`check ${i}: ok`);',
  `console.log('ANTHROPIC_API_KEY=${PROVIDER_KEY.slice(0, 12)}' + '${PROVIDER_KEY.slice(12)}');`,
  `console.error('pushing with ${GITHUB_TOKEN.slice(0, 4)}' + '${GITHUB_TOKEN.slice(4)}');`,
  'const got = sum(1, 2);',
  'if (got !== 3) {',
  '  console.error(`AssertionError: expected ${got} to be 3`);',
  '  process.exitCode = 1;',
  '}',
  '',
].join('\n');

describe('a branch output, where the decision is made', () => {
  it('shows the failing verifier step bounded and redacted, its whole log on request, privately kept and never exported', { timeout: 180_000 }, async () => {
    const h = new ForkHarness(tempDir('citadel-branch-output-'));
    writeFileSync(path.join(h.repo, 'test', 'check.mjs'), CHECK);
    h.gitIn(h.repo, 'add', '-A');
    h.gitIn(h.repo, 'commit', '-q', '-m', 'check');
    writeFileSync(h.workflowFile, JSON.stringify({ ...WORKFLOW, verifier: { command: 'node', args: ['test/check.mjs'], timeout_seconds: 60 } }));
    await h.simulate({
      claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] },
      // Codex's runtime prints a credential to its stderr too (a test-only command that fails: its command line and output go there).
      codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }], commands: [['node', '-e', `console.error('export GITHUB_TOKEN=' + ${JSON.stringify(GITHUB_TOKEN)}); process.exit(3)`]] },
    });
    const { run, doc } = await h.startJson([...START, '--workflow', h.workflowFile], FILE_KEYS);
    expect(run.code, run.stderr).toBe(0);
    expect(branch(doc, 'branch-codex')).toMatchObject({ state: 'failed', failure_code: 'VERIFIER_FAILED' });
    expect(branch(doc, 'branch-claude')).toMatchObject({ state: 'passed' });
    const forkId = doc.fork_id;
    const { service } = await serviceOver(h);

    const codex = value(await service.handle('branchOutput', { fork_id: forkId, branch_id: 'branch-codex' }));
    expect(codex.explains).toBe('verifier:workflow_verifier');
    const command = codex.verifier.find((v) => v.step === 'workflow_verifier');
    expect(command).toMatchObject({ argv: ['node', 'test/check.mjs'], status: 'failed', exit_code: 1, timed_out: false });
    const tail = command!.output;
    expect(tail.text).toContain('AssertionError: expected 1 to be 3');
    // Bounded: the last 200 lines, the start left out and said so; the whole log is larger.
    expect(tail.text.split('\n')).toHaveLength(OUTPUT_TAIL_MAX_LINES);
    expect(tail.truncated).toBe(true);
    expect(tail.text).not.toContain('check 1: ok\n');
    expect(tail.stored_bytes).toBeGreaterThan(Buffer.byteLength(tail.text));
    // Redacted: each secret's line replaced whole, counted.
    expect(tail.text).not.toContain(PROVIDER_KEY);
    expect(tail.text).not.toContain(GITHUB_TOKEN);
    expect(tail.hidden_lines).toBe(2);
    expect(tail.text).toContain(HIDDEN);
    // The runtime's own stderr, redacted the same way.
    expect(codex.runtime.stderr.present).toBe(true);
    expect(codex.runtime.stderr.text).not.toContain(GITHUB_TOKEN);
    expect(codex.runtime.stderr.text).toContain('[citadel: this line is hidden');
    expect(codex.runtime.stderr.hidden_lines).toBeGreaterThan(0);
    expect(codex.runtime.exit).toMatchObject({ code: 0, timed_out: false, stopped: false });
    expect(codex.runtime.stdout.text).toContain('turn.completed');
    // Every verifier step that ran is there, in order, with what it left.
    expect(codex.verifier.map((v) => [v.step, v.status])).toEqual([
      ['result_symlinks', 'passed'],
      ['protected_paths', 'passed'],
      ['git_diff_check', 'passed'],
      ['workflow_verifier', 'failed'],
    ]);
    expect(codex.verifier.find((v) => v.step === 'protected_paths')?.output.text).toBe('["src/sum.js"]');
    expect(codex.setup).toEqual([]);

    // "Show all": the whole log (far below the cap), still redacted.
    const whole = value(await service.handle('branchLog', { fork_id: forkId, branch_id: 'branch-codex', which: 'verifier:workflow_verifier' }));
    expect(whole).toMatchObject({ log: 'verifier:workflow_verifier', present: true, truncated: false, hidden_lines: 2 });
    expect(whole.text).toContain('check 1: ok\n');
    expect(whole.text).toContain('AssertionError: expected 1 to be 3');
    expect(whole.text).not.toContain(PROVIDER_KEY);
    expect(whole.text.split('\n')).toHaveLength(303);

    // The passing branch: nothing to explain.
    const claude = value(await service.handle('branchOutput', { fork_id: forkId, branch_id: 'branch-claude' }));
    expect(claude.explains).toBeNull();
    expect(claude.verifier.find((v) => v.step === 'workflow_verifier')).toMatchObject({ status: 'passed', exit_code: 0 });

    // A log never written is absent, not an error; an unknown branch is refused by its code.
    expect(value(await service.handle('branchLog', { fork_id: forkId, branch_id: 'branch-codex', which: 'verifier:verification_tree' }))).toEqual({
      log: 'verifier:verification_tree',
      present: false,
      text: '',
      truncated: false,
      stored_bytes: null,
      hidden_lines: 0,
    });
    expect(await service.handle('branchOutput', { fork_id: forkId, branch_id: 'branch-gemini' })).toMatchObject({ ok: false, error: { code: 'BRANCH_NOT_FOUND' } });
    expect(await service.handle('branchLog', { fork_id: forkId, branch_id: 'branch-codex', which: 'setup:../../contract' })).toMatchObject({ ok: false, error: { code: 'IPC_REQUEST_INVALID' } });

    // Kept privately, beside the attempt's other files.
    for (const name of ['verifier-workflow_verifier.out', 'verifier-protected_paths.out', 'stderr.log']) {
      expect(statSync(h.attemptFile(forkId, 'branch-codex', name)).mode & 0o777, name).toBe(0o600);
    }

    // Never exported: neither the replay nor the proof carries any of it.
    for (const channel of ['exportReplay', 'exportProof'] as const) {
      const { text } = value(await service.handle(channel, { fork_id: forkId }));
      for (const printed of ['AssertionError', 'check 1: ok', 'check 300: ok', '["src/sum.js"]', 'hidden: it looks like']) expect(text, `${channel}: ${printed}`).not.toContain(printed);
    }

    // Nor the attestation bundle: not its lines, not its payloads decoded; of the verifier it carries each step's status and exit code only.
    const attested = await h.cli(['fork', 'attest', forkId], FILE_KEYS);
    expect(attested.code, attested.stderr).toBe(0);
    const lines = attested.stdout.split('\n').filter(Boolean);
    const decoded = lines.map((line) => Buffer.from((JSON.parse(line) as { payload: string }).payload, 'base64').toString('utf8'));
    expect(decoded.join('\n')).toContain('"exit_code":1,"id":"workflow_verifier","status":"failed"');
    for (const text of [...lines, ...decoded]) {
      for (const printed of ['AssertionError', 'check 1: ok', 'check 300: ok', '["src/sum.js"]', 'hidden: it looks like', 'turn.completed', 'export GITHUB_TOKEN']) expect(text, `attestation: ${printed}`).not.toContain(printed);
      for (const secret of [PROVIDER_KEY, GITHUB_TOKEN]) expect(text.includes(secret.slice(0, 16)), 'attestation: a planted secret').toBe(false);
    }

    // The terminal's view: the same tails, the same redaction.
    const logs = await h.cli(['fork', 'logs', forkId, 'branch-codex'], FILE_KEYS);
    expect(logs.code, logs.stderr).toBe(0);
    expect(logs.stdout).toContain('AssertionError: expected 1 to be 3');
    expect(logs.stdout).toContain('the failure is explained by: verifier:workflow_verifier');
    expect(logs.stdout).not.toContain(GITHUB_TOKEN);
    const refused = await h.cli(['fork', 'logs', forkId, 'branch-codex', '--which', 'setup:../contract', '--json'], FILE_KEYS);
    expect(refused.code).toBe(2);
    expect(JSON.parse(refused.stdout)).toMatchObject({ error: { code: 'USAGE_ERROR' } });
  });

  it('names the runtime output its outcome was parsed from as what explains a runtime failure', { timeout: 120_000 }, async () => {
    const h = new ForkHarness(tempDir('citadel-runtime-output-'));
    await h.simulate({ claude: { outcome: 'auth_error' }, codex: { outcome: 'unparsable' } });
    const { doc } = await h.startJson([...START, '--workflow', h.workflowFile], FILE_KEYS);
    expect(branch(doc, 'branch-claude')).toMatchObject({ state: 'failed', failure_code: 'RUNTIME_AUTH_FAILED' });
    expect(branch(doc, 'branch-codex')).toMatchObject({ state: 'failed', failure_code: 'RUNTIME_OUTPUT_UNPARSABLE' });
    const { service } = await serviceOver(h);
    for (const branchId of ['branch-claude', 'branch-codex']) {
      const output = value(await service.handle('branchOutput', { fork_id: doc.fork_id, branch_id: branchId }));
      expect(output.explains, branchId).toBe('stdout');
      expect(output.runtime.stdout).toMatchObject({ present: true, truncated: false });
      expect(output.runtime.stdout.text, branchId).not.toBe('');
      // The verifier never judged a run that failed: nothing of it is listed.
      expect(output.verifier, branchId).toEqual([]);
    }
  });

  it("names a failed setup step's output as what explains SETUP_FAILED; fork status shows its tail redacted the same way", { timeout: 120_000 }, async () => {
    const h = new ForkHarness(tempDir('citadel-setup-output-'));
    // The step prints a registry credential among its errors; the script joins it from parts, so its command line never holds it whole.
    const failing = [
      "console.log('npm ERR! code E404');",
      `console.error('//registry.npmjs.org/:_authToken=' + ${JSON.stringify(NPM_TOKEN.slice(0, 6))} + ${JSON.stringify(NPM_TOKEN.slice(6))});`,
      "console.error('npm ERR! 404 Not Found - GET https://registry.npmjs.org/no-such-package'); process.exit(1)",
    ].join(' ');
    const setup = [{ id: 'install', command: 'node', args: ['-e', failing], timeout_seconds: 60, network: 'none' }];
    writeFileSync(h.workflowFile, JSON.stringify({ ...WORKFLOW, schema_version: 2, setup }));
    await h.simulate({ edits: [{ path: 'src/sum.js', content: FIXED_SUM }] });
    const { doc } = await h.startJson([...START, '--workflow', h.workflowFile], FILE_KEYS);
    expect(branch(doc, 'branch-claude')).toMatchObject({ state: 'blocked', blocked_code: 'SETUP_FAILED' });
    const { service } = await serviceOver(h);

    const output = value(await service.handle('branchOutput', { fork_id: doc.fork_id, branch_id: 'branch-claude' }));
    expect(output.explains).toBe('setup:install');
    expect(output.setup).toHaveLength(1);
    expect(output.setup[0]).toMatchObject({ step_id: 'install', argv: ['node', '-e', failing], status: 'failed', exit_code: 1 });
    expect(output.setup[0]?.output).toMatchObject({ present: true, truncated: false, hidden_lines: 1 });
    expect(output.setup[0]?.output.text).toContain('npm ERR! code E404');
    expect(output.setup[0]?.output.text).toContain('npm ERR! 404 Not Found');
    expect(output.setup[0]?.output.text).not.toContain(NPM_TOKEN);
    // Nothing of the agent ran: no runtime output, no verifier step.
    expect(output.runtime).toMatchObject({ exit: null, stdout: { present: false }, stderr: { present: false } });
    expect(output.verifier).toEqual([]);

    // The terminal's status: the same tail, the credential's line replaced whole, in text and in JSON.
    const status = await h.cli(['fork', 'status', doc.fork_id], FILE_KEYS);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain('setup step install exited 1; output ends:');
    expect(status.stdout).toContain('| npm ERR! code E404');
    expect(status.stdout).toContain('| npm ERR! 404 Not Found');
    expect(status.stdout).toContain(`| ${HIDDEN}`);
    expect(status.stdout).not.toContain(NPM_TOKEN);
    const json = await h.cli(['fork', 'status', doc.fork_id, '--json'], FILE_KEYS);
    const failure = (JSON.parse(json.stdout) as { setup_failures: Record<string, { tail: string }> }).setup_failures['branch-claude'];
    expect(failure?.tail).toContain('npm ERR! code E404');
    expect(failure?.tail).toContain(HIDDEN);
    expect(json.stdout).not.toContain(NPM_TOKEN);
  });
});
