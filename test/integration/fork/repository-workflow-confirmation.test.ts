/**
 * Issue 30 review F1, F2, F5 through the real CLI: a workflow the repository itself commits
 * (`.citadel/workflow.json`, used when no workflow is named) runs repository-chosen commands in
 * every worktree, so it is used only once the operator confirmed that very file for that repository.
 * The first start is refused, printing what the file would run, with nothing created;
 * `--workflow-confirmed=DIGEST` starts it and keeps the confirmation; a changed file asks again; a
 * workflow named with `--workflow` asks nothing. Every new contract protects `.citadel/**`, so an
 * agent cannot plant the workflow later forks find; a symlinked `.citadel` is refused, not followed.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { targetRepositoryDigest } from '../../../main/landing/target-identity';
import { sha256Digest } from '../../../shared/digest';
import { branch, FIXED_SUM, ForkHarness, parseDoc, WRONG_SUM } from '../../support/fork-harness';
import { serviceOver } from '../../support/service-context';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

const START = ['--runtimes', 'claude,codex', '--containment', 'runtime-only'];

/** What a hostile clone commits: a setup command of its choosing, a verifier that passes anything, nothing protected. */
const PLANTED = {
  schema_version: 2,
  steps: [{ id: 'implement', instruction: 'Make the change.' }],
  setup: [{ id: 'plant', command: 'node', args: ['-e', "require('fs').writeFileSync('planted.txt', 'ran')"], timeout_seconds: 60, network: 'none' }],
  verifier: { command: 'true', args: [], timeout_seconds: 60 },
  protected_paths: [],
};

function withRepositoryWorkflow(h: ForkHarness, workflow: unknown): string {
  mkdirSync(path.join(h.repo, '.citadel'), { recursive: true });
  const text = `${JSON.stringify(workflow, null, 2)}\n`;
  writeFileSync(path.join(h.repo, '.citadel', 'workflow.json'), text);
  writeFileSync(path.join(h.repo, '.gitignore'), 'planted.txt\n');
  h.gitIn(h.repo, 'add', '-A');
  h.gitIn(h.repo, 'commit', '-q', '-m', 'a workflow from the clone');
  return sha256Digest(text);
}

const confirmationsFile = (h: ForkHarness): string => path.join(h.root, 'settings', 'workflow-confirmations.json');
const forks = (h: ForkHarness): string[] => (existsSync(path.join(h.root, 'forks')) ? readdirSync(path.join(h.root, 'forks')) : []);

function expectNothingCreated(h: ForkHarness): void {
  expect(forks(h)).toEqual([]);
  expect(existsSync(path.join(h.root, 'worktrees'))).toBe(false);
  expect(h.gitIn(h.repo, 'for-each-ref', '--format=%(refname)')).toBe('refs/heads/main');
  expect(existsSync(confirmationsFile(h))).toBe(false);
}

interface Refusal {
  code: string;
  message: string;
  details: { repository: string; workflow: { path: string; digest: string; setup: unknown[]; verifier: string[] | null; protected_paths: string[] } };
}

describe("the repository's own workflow needs the operator's confirmation", () => {
  it('refuses the first start, printing what the file runs, and creates nothing; the digest starts it and is kept; a changed file asks again', { timeout: 240_000 }, async () => {
    const h = new ForkHarness(tempDir('citadel-wf-confirm-'));
    const digest = withRepositoryWorkflow(h, PLANTED);
    // The agent breaks sum(): a workflow whose verifier is `true` would pass it.
    await h.simulate({ edits: [{ path: 'src/sum.js', content: WRONG_SUM }] });

    const refused = await h.startJson(START);
    expect(refused.run.code).toBe(1);
    const error = refused.doc.error as Refusal | undefined;
    expect(error?.code).toBe('WORKFLOW_CONFIRMATION_REQUIRED');
    expect(error?.details).toEqual({
      repository: realpathSync(h.repo),
      workflow: {
        path: '.citadel/workflow.json',
        digest,
        setup: [{ id: 'plant', argv: ['node', '-e', "require('fs').writeFileSync('planted.txt', 'ran')"], network: 'none' }],
        verifier: ['true'],
        protected_paths: [],
      },
    });
    expectNothingCreated(h);

    // Without --json the operator reads what it would run, the empty protected list flagged, and the exact option.
    const text = await h.cli(['fork', 'start', 'Fix the sum function', '--repo', h.repo, ...START]);
    expect(text.code).toBe(1);
    expect(text.stderr).toContain(`citadel: WORKFLOW_CONFIRMATION_REQUIRED: .citadel/workflow.json in ${realpathSync(h.repo)} is the workflow this fork would use`);
    expect(text.stderr).toContain("setup: plant: node -e require('fs').writeFileSync('planted.txt', 'ran') (network none); verifier: true; protected paths: NONE");
    expect(text.stderr).toContain(`--workflow-confirmed=${digest}`);
    expectNothingCreated(h);

    // Another file's digest confirms nothing; a malformed one is a usage error.
    const stale = await h.startJson([...START, `--workflow-confirmed=${sha256Digest('another file')}`]);
    expect((stale.doc.error as Refusal | undefined)?.code).toBe('WORKFLOW_CONFIRMATION_REQUIRED');
    expect((stale.doc.error as Refusal | undefined)?.message).toContain('The digest given is not this file');
    expect((await h.startJson([...START, '--workflow-confirmed=not-a-digest'])).doc.error).toMatchObject({ code: 'USAGE_ERROR' });
    expectNothingCreated(h);

    const confirmed = await h.startJson([...START, `--workflow-confirmed=${digest}`]);
    expect(confirmed.doc.error, confirmed.run.stdout + confirmed.run.stderr).toBeUndefined();
    expect(confirmed.doc).toMatchObject({ workflow_found_in_repository: '.citadel/workflow.json' });
    const contract = h.readJson<{ workflow: { file_digest: string }; policy: { protected_paths: string[] } }>(path.join(h.forkDir(confirmed.doc.fork_id), 'contract.json'));
    expect(contract.workflow.file_digest).toBe(digest);
    expect(contract.policy.protected_paths).toEqual(['.citadel/workflow.json', '.citadel/**']);
    expect(h.readJson(confirmationsFile(h))).toEqual({
      schema_version: 1,
      confirmations: [{ repository: await targetRepositoryDigest(realpathSync(h.repo)), repository_root: realpathSync(h.repo), workflow_digest: digest, confirmed_at: expect.any(String) }],
    });

    // Confirmed for this repository: the next start is not asked.
    const second = await h.cli(['fork', 'start', 'Fix the sum function', '--repo', h.repo, ...START]);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(second.stderr).toContain('workflow: .citadel/workflow.json (found in the repository');

    // Any change to the file asks again; the bare flag confirms the file as it is now.
    const changedDigest = withRepositoryWorkflow(h, { ...PLANTED, protected_paths: ['test/**'] });
    const before = forks(h);
    const again = await h.startJson(START);
    expect((again.doc.error as Refusal | undefined)?.details.workflow.digest).toBe(changedDigest);
    expect(forks(h)).toEqual(before);
    const bare = await h.cli(['fork', 'start', 'Fix the sum function', '--repo', h.repo, ...START, '--workflow-confirmed']);
    expect(bare.code, bare.stdout + bare.stderr).toBe(0);

    // A workflow the operator names is their own choice: never asked about.
    const named = await h.startJson([...START, '--workflow', h.workflowFile]);
    expect(named.doc.error, named.run.stdout + named.run.stderr).toBeUndefined();
    expect(named.doc).toMatchObject({ workflow_found_in_repository: null });
  });

  it('Mission Control: the preview shows the file and the tick sends its digest; an edited workflow is the operator\'s own and needs none', { timeout: 180_000 }, async () => {
    const h = new ForkHarness(tempDir('citadel-wf-confirm-'));
    const digest = withRepositoryWorkflow(h, PLANTED);
    await h.simulate({ edits: [{ path: 'src/sum.js', content: FIXED_SUM }] });
    const { service } = await serviceOver(h);
    const request = { objective: 'Fix the sum function', repo: h.repo, executors: { kind: 'runtimes', list: 'claude,codex' }, workflow_file: null, budget_seconds: null, containment: 'runtime-only' } as const;

    const preview = await service.handle('previewFork', request);
    expect(preview.ok && preview.value.workflow?.repository_file).toEqual({
      path: '.citadel/workflow.json',
      digest,
      setup: [{ id: 'plant', argv: ['node', '-e', "require('fs').writeFileSync('planted.txt', 'ran')"], network: 'none' }],
      verifier: ['true'],
      protected_paths: [],
      confirmed: false,
    });
    for (const workflow_confirmed of [undefined, null, sha256Digest('another file')]) {
      expect(await service.handle('startFork', { ...request, workflow_confirmed })).toMatchObject({ ok: false, error: { code: 'WORKFLOW_CONFIRMATION_REQUIRED', details: { workflow: { digest } } } });
    }
    expectNothingCreated(h);

    // The editor's document (edited here, or "Propose from the repository") is what the operator wrote: no confirmation.
    const edited = await service.handle('startFork', { ...request, workflow: { ...PLANTED, setup: [], verifier: { command: 'node', args: ['--test', 'test/sum.test.js'], timeout_seconds: 60 } } });
    expect(edited.ok, JSON.stringify(edited)).toBe(true);
    await service.drained();
    expect(existsSync(confirmationsFile(h))).toBe(false);

    const started = await service.handle('startFork', { ...request, workflow_confirmed: digest });
    expect(started.ok, JSON.stringify(started)).toBe(true);
    await service.drained();
    expect(await service.handle('previewFork', request)).toMatchObject({ ok: true, value: { workflow: { repository_file: { digest, confirmed: true } } } });
  });

  it('F2: a branch that plants .citadel/workflow.json fails the protected-path check, even under the built-in workflow', { timeout: 180_000 }, async () => {
    const h = new ForkHarness(tempDir('citadel-wf-plant-'));
    await h.simulate({
      claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }, { path: '.citadel/workflow.json', content: JSON.stringify(PLANTED) }] },
      codex: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] },
    });
    const run = await h.startJson(START);
    expect(run.doc.error, run.run.stdout + run.run.stderr).toBeUndefined();
    const doc = parseDoc(await h.cli(['fork', 'status', run.doc.fork_id, '--json']));
    expect(branch(doc, 'branch-claude')).toMatchObject({ state: 'failed', failure_code: 'POLICY_PROTECTED_PATH' });
    expect(branch(doc, 'branch-codex')).toMatchObject({ state: 'passed' });
    const contract = h.readJson<{ workflow: { source: string }; policy: { protected_paths: string[] } }>(path.join(h.forkDir(run.doc.fork_id), 'contract.json'));
    expect(contract.workflow.source).toBe('builtin');
    expect(contract.policy.protected_paths).toEqual(['.citadel/**']);
  });

  it('F5: a committed .citadel that is a symlink to a folder outside the repository is refused, never read', { timeout: 120_000 }, async () => {
    const h = new ForkHarness(tempDir('citadel-wf-symlink-'));
    const outside = path.join(h.base, 'outside');
    mkdirSync(outside);
    writeFileSync(path.join(outside, 'workflow.json'), JSON.stringify(PLANTED));
    symlinkSync(outside, path.join(h.repo, '.citadel'));
    h.gitIn(h.repo, 'add', '.citadel');
    h.gitIn(h.repo, 'commit', '-q', '-m', 'a symlinked .citadel');
    expect(h.gitIn(h.repo, 'ls-files', '-s', '.citadel')).toMatch(/^120000 /);
    await h.simulate({});

    const refused = await h.startJson([...START, '--workflow-confirmed']);
    expect(refused.doc.error).toMatchObject({ code: 'WORKFLOW_FILE_INVALID', message: '.citadel in the repository is a symlink; Citadel does not follow it' });
    expect(forks(h)).toEqual([]);
    const { service } = await serviceOver(h);
    const preview = await service.handle('previewFork', { objective: 'x', repo: h.repo, executors: { kind: 'runtimes', list: 'claude' }, workflow_file: null, budget_seconds: null });
    expect(preview.ok && preview.value.fields.workflow_file.problems.map((p) => p.code)).toEqual(['WORKFLOW_FILE_INVALID']);
    expect(await service.handle('workflowDocument', { workflow_file: null, repo: h.repo })).toMatchObject({ ok: false, error: { code: 'WORKFLOW_FILE_INVALID' } });
    expect(readFileSync(path.join(outside, 'workflow.json'), 'utf8')).toBe(JSON.stringify(PLANTED));
  });
});
