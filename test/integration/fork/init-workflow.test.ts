/**
 * Issue 30 item 2, acceptance: on an npm repository, the workflow `citadel init --write` proposes
 * runs a whole fork with the simulated runtimes to `ready`. `fork start` names no workflow: it
 * finds `.citadel/workflow.json`, is refused until the operator confirms that file (its digest,
 * printed with what it runs), then says where the workflow came from, runs the proposed `npm ci` (a lock without
 * dependencies, so no registry is needed) contained in each worktree, and the proposed verifier
 * `npm test` judges the branches; the workflow file and the proposed protected paths are bound.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256Digest } from '../../../shared/digest';
import { branch, FIXED_SUM, ForkHarness, parseDoc } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

const PACKAGE_JSON = { name: 'sum', version: '1.0.0', private: true, type: 'module', scripts: { test: 'node --test test/sum.test.js' } };
const LOCK = { name: 'sum', version: '1.0.0', lockfileVersion: 3, requires: true, packages: { '': { name: 'sum', version: '1.0.0' } } };

describe('a workflow proposed by citadel init', () => {
  it('runs a whole fork to ready when fork start names no workflow, and the start says where it came from', { timeout: 180_000 }, async () => {
    const h = new ForkHarness(tempDir('citadel-init-fork-'));
    writeFileSync(path.join(h.repo, 'package.json'), `${JSON.stringify(PACKAGE_JSON, null, 2)}\n`);
    writeFileSync(path.join(h.repo, 'package-lock.json'), `${JSON.stringify(LOCK, null, 2)}\n`);
    writeFileSync(path.join(h.repo, '.gitignore'), 'node_modules/\n');
    h.gitIn(h.repo, 'add', '-A');
    h.gitIn(h.repo, 'commit', '-q', '-m', 'npm project');

    const init = await h.cli(['init', '--repo', h.repo, '--write', '--json']);
    expect(init.code, init.stderr).toBe(0);
    const proposed = JSON.parse(init.stdout) as { path: string; workflow: { setup: unknown[]; verifier: unknown; protected_paths: string[] } };
    expect(proposed.path).toBe(path.join(h.repo, '.citadel', 'workflow.json'));
    h.gitIn(h.repo, 'add', '.citadel/workflow.json');
    h.gitIn(h.repo, 'commit', '-q', '-m', 'citadel init');

    await h.simulate({ edits: [{ path: 'src/sum.js', content: FIXED_SUM }] });
    const asked = await h.cli(['fork', 'start', 'Fix the sum function', '--repo', h.repo, '--runtimes', 'claude,codex']);
    expect(asked.code).toBe(1);
    expect(asked.stderr).toContain('WORKFLOW_CONFIRMATION_REQUIRED');
    expect(asked.stderr).toContain('setup: npm-ci: npm ci (network registries); verifier: npm test; protected paths: ');
    const digest = sha256Digest(readFileSync(proposed.path, 'utf8'));
    expect(asked.stderr).toContain(`--workflow-confirmed=${digest}`);
    const run = await h.cli(['fork', 'start', 'Fix the sum function', '--repo', h.repo, '--runtimes', 'claude,codex', `--workflow-confirmed=${digest}`]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('workflow: .citadel/workflow.json (found in the repository');
    const forkId = /fork (fork-[0-9a-z]+) created/.exec(run.stderr)?.[1] ?? '';
    const doc = parseDoc(await h.cli(['fork', 'status', forkId, '--json']));
    expect(doc.state, JSON.stringify(doc)).toBe('ready');
    for (const id of ['branch-claude', 'branch-codex']) {
      expect(branch(doc, id)).toMatchObject({ state: 'passed', failure_code: null });
      const receipt = h.readJson<{ receipt: { setup: { steps: { id: string; status: string }[] }; verifier: { steps: { id: string; status: string }[] } } }>(
        h.attemptFile(forkId, id, 'execution-receipt.json'),
      ).receipt;
      expect(receipt.setup.steps.map((step) => [step.id, step.status])).toEqual([['npm-ci', 'passed']]);
      expect(Object.fromEntries(receipt.verifier.steps.map((step) => [step.id, step.status]))).toMatchObject({ protected_paths: 'passed', git_diff_check: 'passed', workflow_verifier: 'passed' });
    }
    const contract = h.readJson<{ workflow: Record<string, unknown>; verifier: { command: unknown }; policy: { protected_paths: string[] } }>(path.join(h.forkDir(forkId), 'contract.json'));
    expect(contract.workflow).toMatchObject({ source: 'file', file_path_in_repo: '.citadel/workflow.json', setup: [{ id: 'npm-ci', command: 'npm', args: ['ci'], network: 'registries' }] });
    expect(contract.verifier.command).toEqual(proposed.workflow.verifier);
    expect(contract.policy.protected_paths).toEqual([...proposed.workflow.protected_paths, '.citadel/workflow.json']);
  });
});
