/**
 * Issue 13 item 6, the Python example of docs/workflows.md run for real: setup `python3 -m venv --without-pip
 * .venv` with no network (nothing comes from PyPI: `registries` knows npm only), then a verifier
 * that runs the venv's python on the standard library's unittest, contained. Simulated executors:
 * one fixes the bug, one does not; the fork recommends the fix.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { branch, ForkHarness } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

const BUGGY = 'def add(a, b):\n    return a - b\n';
const FIXED = 'def add(a, b):\n    return a + b\n';
const WRONG = 'def add(a, b):\n    return abs(a - b)\n';
const TEST = [
  'import sys',
  'import unittest',
  '',
  'from src.calc import add',
  '',
  '',
  'class AddTest(unittest.TestCase):',
  '    def test_adds(self):',
  '        self.assertEqual(add(2, 3), 5)',
  '',
  '    def test_runs_in_the_venv(self):',
  '        self.assertNotEqual(sys.prefix, sys.base_prefix)',
  '',
].join('\n');

/** As in docs/workflows.md: the venv made by setup, the verifier `env .venv/bin/python -B -m unittest …` (a bare command, no shell). */
const WORKFLOW = {
  schema_version: 2,
  steps: [{ id: 'fix', instruction: 'Fix src/calc.py so that the unit tests pass.' }],
  setup: [{ id: 'venv', command: 'python3', args: ['-m', 'venv', '--without-pip', '.venv'], timeout_seconds: 120, network: 'none' }],
  verifier: { command: 'env', args: ['.venv/bin/python', '-B', '-m', 'unittest', 'discover', '-s', 'tests', '-t', '.'], timeout_seconds: 120 },
  protected_paths: ['tests/**'],
};

describe('setup on a Python project', () => {
  it('python3 -m venv in each worktree, unittest in the venv judges, the fix is recommended', { timeout: 120_000 }, async () => {
    const h = new ForkHarness(tempDir('citadel-setup-python-'));
    mkdirSync(path.join(h.repo, 'tests'));
    writeFileSync(path.join(h.repo, 'src', '__init__.py'), '');
    writeFileSync(path.join(h.repo, 'src', 'calc.py'), BUGGY);
    writeFileSync(path.join(h.repo, 'tests', '__init__.py'), '');
    writeFileSync(path.join(h.repo, 'tests', 'test_calc.py'), TEST);
    writeFileSync(path.join(h.repo, '.gitignore'), '.venv/\n__pycache__/\n');
    h.gitIn(h.repo, 'add', '-A');
    h.gitIn(h.repo, 'commit', '-q', '-m', 'python project');
    writeFileSync(h.workflowFile, JSON.stringify(WORKFLOW));
    await h.simulate({ claude: { edits: [{ path: 'src/calc.py', content: FIXED }] }, codex: { edits: [{ path: 'src/calc.py', content: WRONG }] } });

    // The system python3: a version manager's shim under the operator's home (pyenv here) is not in the sandbox's toolchain view.
    const env = { PATH: `${h.bin}${path.delimiter}/usr/local/bin${path.delimiter}/usr/bin${path.delimiter}/bin` };
    const { run, doc } = await h.startJson(['--runtimes', 'claude,codex', '--workflow', h.workflowFile], env);
    expect(run.code, run.stderr).toBe(0);
    expect(branch(doc, 'branch-claude')).toMatchObject({ state: 'passed', failure_code: null });
    expect(branch(doc, 'branch-codex')).toMatchObject({ state: 'failed', failure_code: 'VERIFIER_FAILED' });
    for (const id of ['branch-claude', 'branch-codex']) {
      const { setup } = h.readJson<{ receipt: { setup?: { steps: { id: string; status: string }[]; containment: { mode: string } } } }>(h.attemptFile(doc.fork_id, id, 'execution-receipt.json')).receipt;
      expect(setup, id).toMatchObject({ steps: [{ id: 'venv', status: 'passed' }], containment: { mode: 'contained' } });
      expect(existsSync(path.join(h.worktree(doc.fork_id, id), '.venv', 'pyvenv.cfg')), id).toBe(true);
    }
    const compare = await h.cli(['fork', 'compare', doc.fork_id, '--json'], env);
    expect(JSON.parse(compare.stdout)).toMatchObject({ outcome: 'recommend', recommended_branch_id: 'branch-claude' });
  });
});
