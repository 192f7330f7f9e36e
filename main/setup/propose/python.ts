import type { ProposalFinding } from '../../../shared/fork/workflow-proposal';
import type { SetupStepFile } from '../../../shared/fork/workflow';
import { fetchStep, note, type EcosystemReading, type ProposedVerifier } from './ecosystem';
import type { RepositoryFiles } from './repository-files';

const REQUIREMENTS = /^requirements[^/]*\.txt$/;
// What `python -m unittest` discovers by default (`test*.py`).
const TEST_MODULE = /(^|\/)test[^/]*\.py$/;

/** How the project's environment is entered: uv's and Poetry's own runners, else the `python3` on PATH. */
type Runner = 'uv' | 'poetry' | 'python';

/**
 * A Python project at the repository's top: setup from uv's or Poetry's lockfile, else pip with
 * its `requirements*.txt`; the verifier pytest where the project configures or depends on it,
 * else unittest where it has test modules.
 */
export async function readPythonProject(files: RepositoryFiles): Promise<EcosystemReading | null> {
  const pyproject = await files.read('pyproject.toml');
  const requirements = files.tracked.filter((file) => REQUIREMENTS.test(file)).sort(requirementsFirst);
  const markers = ['pyproject.toml', 'setup.py', 'setup.cfg', 'uv.lock', 'poetry.lock', 'pytest.ini', 'tox.ini'].filter((file) => files.has(file));
  if (markers.length === 0 && requirements.length === 0) return null;

  const findings: ProposalFinding[] = [];
  const setup: SetupStepFile[] = [];
  const lockfiles: string[] = [];
  let runner: Runner = 'python';
  if (files.has('uv.lock')) {
    runner = 'uv';
    lockfiles.push('uv.lock');
    add(fetchStep('uv-sync', ['uv', 'sync', '--frozen'], 'uv.lock'));
  } else if (files.has('poetry.lock')) {
    runner = 'poetry';
    lockfiles.push('poetry.lock');
    add(fetchStep('poetry-install', ['poetry', 'install', '--no-interaction'], 'poetry.lock'));
    if (!/^\s*in-project\s*=\s*true\b/m.test((await files.read('poetry.toml')) ?? '')) {
      findings.push(note('Poetry makes its virtual environment outside the worktree unless virtualenvs.in-project is true (in poetry.toml), so each branch may not get its own', 'no poetry.toml with in-project = true'));
    }
  } else if (requirements.length > 0) {
    lockfiles.push(...requirements);
    add(fetchStep('pip-install', ['pip', 'install', ...requirements.flatMap((file) => ['-r', file])], requirements.join(', ')));
    findings.push(note('pip installs into the Python environment on PATH: run Citadel from the project\'s virtual environment (a system Python may refuse, PEP 668)', requirements.join(', ')));
  } else {
    findings.push(note('no setup step: no uv.lock, poetry.lock or requirements*.txt to install from', markers.join(', ')));
  }

  const verifier = (await pytestEvidence(files, pyproject, requirements)) ?? unittestEvidence(files);
  return { ecosystem: 'python', setup, verifier: verifier === null ? null : testCommand(runner, verifier), lockfiles, findings };

  function add(proposed: ReturnType<typeof fetchStep>): void {
    setup.push(proposed.step);
    findings.push(proposed.finding);
  }
}

function testCommand(runner: Runner, found: { tool: 'pytest' | 'unittest'; evidence: string }): ProposedVerifier {
  const module = found.tool === 'pytest' ? ['-m', 'pytest'] : ['-m', 'unittest'];
  if (runner === 'uv') return { command: 'uv', args: ['run', '--frozen', 'python', ...module], evidence: found.evidence };
  if (runner === 'poetry') return { command: 'poetry', args: ['run', 'python', ...module], evidence: found.evidence };
  return { command: 'python3', args: module, evidence: found.evidence };
}

async function pytestEvidence(files: RepositoryFiles, pyproject: string | null, requirements: readonly string[]): Promise<{ tool: 'pytest'; evidence: string } | null> {
  const found = (evidence: string) => ({ tool: 'pytest' as const, evidence });
  if (pyproject !== null && /^\s*\[tool\.pytest[\].]/m.test(pyproject)) return found('pyproject.toml [tool.pytest.ini_options]');
  if (files.has('pytest.ini')) return found('pytest.ini');
  const conftest = files.tracked.find((file) => /(^|\/)conftest\.py$/.test(file));
  if (conftest !== undefined) return found(conftest);
  if (/^\s*\[tool:pytest\]/m.test((await files.read('setup.cfg')) ?? '')) return found('setup.cfg [tool:pytest]');
  if (/^\s*\[pytest\]/m.test((await files.read('tox.ini')) ?? '')) return found('tox.ini [pytest]');
  for (const file of requirements) {
    if (/^\s*pytest\b/im.test((await files.read(file)) ?? '')) return found(`${file} names pytest`);
  }
  if (pyproject !== null && /["']pytest\b/.test(pyproject)) return found('pyproject.toml depends on pytest');
  return null;
}

function unittestEvidence(files: RepositoryFiles): { tool: 'unittest'; evidence: string } | null {
  const modules = files.tracked.filter((file) => TEST_MODULE.test(file));
  if (modules.length === 0) return null;
  return { tool: 'unittest', evidence: `test modules (${modules.slice(0, 3).join(', ')}${modules.length > 3 ? ', …' : ''}) and no pytest configuration or dependency` };
}

/** `requirements.txt` first, then the others by name: the base before what extends it. */
function requirementsFirst(a: string, b: string): number {
  if (a === 'requirements.txt') return -1;
  if (b === 'requirements.txt') return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}
