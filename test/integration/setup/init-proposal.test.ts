/**
 * Issue 30 item 2, `citadel init`'s reading: real git repositories built here for each ecosystem
 * (npm, pnpm, yarn, bun, Python with uv, pytest or unittest, Go, Cargo, and one with nothing
 * recognisable), each with the workflow it must propose, every part with its evidence. The door is
 * called in-process; the CLI itself is run as a child process in test/integration/cli/init.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import type { CitadelError } from '../../../shared/errors';
import { WorkflowFileSchema } from '../../../shared/fork/workflow';
import { initRepository, proposeWorkflow } from '../../../main/orchestrator';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });

/** A repository with `tracked` committed and `untracked` left in the working tree (ignored ones among them). */
function fixture(tracked: Record<string, string>, untracked: Record<string, string> = {}): string {
  const repo = path.join(tempDir('citadel-init-'), 'repo');
  const write = (files: Record<string, string>): void => {
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
      writeFileSync(path.join(repo, file), text);
    }
  };
  mkdirSync(repo, { recursive: true });
  write(tracked);
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'fixture');
  write(untracked);
  return repo;
}

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;
const EMPTY_NPM_LOCK = json({ name: 'p', version: '1.0.0', lockfileVersion: 3, requires: true, packages: { '': { name: 'p', version: '1.0.0' } } });
const setupOf = (proposal: Awaited<ReturnType<typeof proposeWorkflow>>) => proposal.workflow?.setup.map((step) => [step.command, ...step.args, step.network].join(' '));
const verifierOf = (proposal: Awaited<ReturnType<typeof proposeWorkflow>>) => {
  const verifier = proposal.workflow?.verifier;
  return verifier === undefined ? null : [verifier.command, ...verifier.args].join(' ');
};
const evidenceOf = (proposal: Awaited<ReturnType<typeof proposeWorkflow>>, part: string) =>
  proposal.findings.filter((finding) => finding.part === part).map((finding) => `${finding.evidence} → ${finding.proposal}`);

describe('citadel init proposes the workflow a repository implies', () => {
  it('npm: npm ci from package-lock.json, npm test from scripts.test, the tests, CI and lockfile protected, an ignored .env.test proposed and .env only noted', async () => {
    const repo = fixture(
      {
        'package.json': json({ name: 'p', version: '1.0.0', scripts: { test: 'node --test' } }),
        'package-lock.json': EMPTY_NPM_LOCK,
        'test/a.test.js': '',
        'src/b.spec.ts': '',
        '.github/workflows/ci.yml': 'jobs:\n  test:\n    steps:\n      - run: npm ci\n      - run: npm test\n',
        '.gitignore': '.env*\n!.env.example\nnode_modules/\n',
        '.env.example': 'A=\n',
      },
      { '.env': 'A=1\n', '.env.local': 'TOKEN=s3cret\n', '.env.test': 'A=2\n', 'node_modules/x/.env': 'no\n' },
    );
    const proposal = await proposeWorkflow(repo);
    expect(proposal.repo).toBe(repo);
    expect(setupOf(proposal)).toEqual(['npm ci registries']);
    expect(verifierOf(proposal)).toBe('npm test');
    expect(proposal.workflow?.steps.map((step) => step.id)).toEqual(['implement']);
    expect(proposal.workflow?.protected_paths).toEqual(['test/**', '**/*.spec.{ts,tsx,js,jsx,mjs,cjs,mts,cts}', '.github/workflows/**', 'package-lock.json', '.citadel/**']);
    expect(evidenceOf(proposal, 'setup')).toEqual(['package-lock.json → npm ci']);
    expect(evidenceOf(proposal, 'verifier')).toEqual(['package.json scripts.test: node --test; .github/workflows/ci.yml runs it too → npm test']);
    // Ignored, clearly non-secret environment files that exist, anchored; the tracked example and an ignored folder's file are not.
    expect(proposal.worktree_include).toEqual(['/.env.test']);
    // Files that may hold secrets are not proposed: a note names each, for the operator to add by hand.
    const notes = evidenceOf(proposal, 'note').join('\n');
    for (const secret of ['.env', '.env.local']) {
      expect(notes).toContain(`${secret} exists and git ignores it → ${secret} is not proposed for .worktreeinclude: it may hold secrets, and every agent and setup step would read it; add /${secret} to .worktreeinclude by hand if they may`);
    }
    // Every proposed pattern matches what it was proposed for, as the collector matches (picomatch, dot files).
    const isProtected = picomatch(proposal.workflow?.protected_paths ?? [], { dot: true });
    for (const file of ['test/a.test.js', 'src/b.spec.ts', '.github/workflows/ci.yml', 'package-lock.json', '.citadel/workflow.json']) expect(isProtected(file), file).toBe(true);
    expect(isProtected('src/index.js')).toBe(false);
    expect(WorkflowFileSchema.safeParse(proposal.workflow).success).toBe(true);
  });

  it("npm's placeholder test script is not a test command: nothing is proposed, and the refusal says what was found", async () => {
    const repo = fixture({ 'package.json': json({ name: 'p', scripts: { test: 'echo "Error: no test specified" && exit 1' } }), 'package-lock.json': EMPTY_NPM_LOCK });
    const proposal = await proposeWorkflow(repo);
    expect(proposal.workflow).toBeNull();
    expect(evidenceOf(proposal, 'note').join('\n')).toContain('placeholder');
    const refused = await initRepository(repo, { write: true, force: false }).catch((error: CitadelError) => error);
    expect(refused).toMatchObject({ code: 'WORKFLOW_NOT_RECOGNISED' });
    expect((refused as CitadelError).message).toContain('npm ci (package-lock.json)');
  });

  it('pnpm: pnpm install --frozen-lockfile and pnpm test; test files beside the code protected by their glob', async () => {
    const repo = fixture({ 'package.json': json({ name: 'p', scripts: { test: 'vitest run' } }), 'pnpm-lock.yaml': "lockfileVersion: '9.0'\n", 'src/a.test.ts': '', 'vitest.config.ts': '' });
    const proposal = await proposeWorkflow(repo);
    expect(setupOf(proposal)).toEqual(['pnpm install --frozen-lockfile registries']);
    expect(verifierOf(proposal)).toBe('pnpm test');
    expect(proposal.workflow?.protected_paths).toEqual(['**/*.test.{ts,tsx,js,jsx,mjs,cjs,mts,cts}', 'vitest.config.ts', 'pnpm-lock.yaml', '.citadel/**']);
    expect(proposal.worktree_include).toEqual([]);
  });

  it('yarn: --immutable with .yarnrc.yml (Yarn 2+), --frozen-lockfile without; bun: bun run test, not bun test', async () => {
    const manifest = json({ name: 'p', scripts: { test: 'jest' } });
    const berry = await proposeWorkflow(fixture({ 'package.json': manifest, 'yarn.lock': '', '.yarnrc.yml': 'nodeLinker: node-modules\n' }));
    expect(setupOf(berry)).toEqual(['yarn install --immutable registries']);
    expect(verifierOf(berry)).toBe('yarn test');
    const classic = await proposeWorkflow(fixture({ 'package.json': manifest, 'yarn.lock': '' }));
    expect(setupOf(classic)).toEqual(['yarn install --frozen-lockfile registries']);
    const bun = await proposeWorkflow(fixture({ 'package.json': manifest, 'bun.lock': '{}' }));
    expect(setupOf(bun)).toEqual(['bun install --frozen-lockfile registries']);
    expect(verifierOf(bun)).toBe('bun run test');
  });

  it('Python with pytest: pip from requirements*.txt (requirements.txt first), python3 -m pytest from pyproject; uv and Poetry through their own runners', async () => {
    const pip = await proposeWorkflow(
      fixture({ 'pyproject.toml': '[project]\nname = "p"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n', 'requirements-dev.txt': 'pytest\n', 'requirements.txt': 'requests\n', 'tests/test_a.py': '', 'tests/conftest.py': '' }),
    );
    expect(setupOf(pip)).toEqual(['pip install -r requirements.txt -r requirements-dev.txt registries']);
    expect(verifierOf(pip)).toBe('python3 -m pytest');
    expect(evidenceOf(pip, 'verifier')).toEqual(['pyproject.toml [tool.pytest.ini_options] → python3 -m pytest']);
    expect(pip.workflow?.protected_paths).toEqual(['tests/**', 'requirements.txt', 'requirements-dev.txt', '.citadel/**']);

    const uv = await proposeWorkflow(fixture({ 'pyproject.toml': '[project]\nname = "p"\ndependencies = []\n[dependency-groups]\ndev = ["pytest>=8"]\n', 'uv.lock': 'version = 1\n', 'tests/test_a.py': '' }));
    expect(setupOf(uv)).toEqual(['uv sync --frozen registries']);
    expect(verifierOf(uv)).toBe('uv run --frozen python -m pytest');

    const poetry = await proposeWorkflow(fixture({ 'pyproject.toml': '[tool.poetry]\nname = "p"\n', 'poetry.lock': '', 'pytest.ini': '[pytest]\n', 'test_a.py': '' }));
    expect(setupOf(poetry)).toEqual(['poetry install --no-interaction registries']);
    expect(verifierOf(poetry)).toBe('poetry run python -m pytest');
    expect(evidenceOf(poetry, 'note').join('\n')).toContain('virtualenvs.in-project');
    expect(poetry.workflow?.protected_paths).toEqual(['**/test_*.py', 'pytest.ini', 'poetry.lock', '.citadel/**']);
  });

  it('Python without pytest: unittest where test*.py modules exist', async () => {
    const proposal = await proposeWorkflow(fixture({ 'setup.py': 'from setuptools import setup\nsetup()\n', 'pkg/__init__.py': '', 'pkg/test_core.py': '' }));
    expect(setupOf(proposal)).toEqual([]);
    expect(verifierOf(proposal)).toBe('python3 -m unittest');
    expect(evidenceOf(proposal, 'note').join('\n')).toContain('no setup step');
  });

  it('Go: go mod download, go test ./..., *_test.go and go.sum protected', async () => {
    const proposal = await proposeWorkflow(fixture({ 'go.mod': 'module example.com/p\n\ngo 1.22\n', 'go.sum': '', 'p.go': 'package p\n', 'p_test.go': 'package p\n' }));
    expect(setupOf(proposal)).toEqual(['go mod download registries']);
    expect(verifierOf(proposal)).toBe('go test ./...');
    expect(proposal.workflow?.protected_paths).toEqual(['**/*_test.go', 'go.sum', '.citadel/**']);
  });

  it('Cargo: cargo fetch --locked with Cargo.lock (plain without), cargo test, tests/ protected', async () => {
    const locked = await proposeWorkflow(fixture({ 'Cargo.toml': '[package]\nname = "p"\nversion = "0.1.0"\n', 'Cargo.lock': 'version = 3\n', 'src/lib.rs': '', 'tests/it.rs': '' }));
    expect(setupOf(locked)).toEqual(['cargo fetch --locked registries']);
    expect(verifierOf(locked)).toBe('cargo test');
    expect(locked.workflow?.protected_paths).toEqual(['tests/**', 'Cargo.lock', '.citadel/**']);
    const unlocked = await proposeWorkflow(fixture({ 'Cargo.toml': '[package]\nname = "p"\nversion = "0.1.0"\n', 'src/lib.rs': '' }));
    expect(setupOf(unlocked)).toEqual(['cargo fetch registries']);
  });

  it('two ecosystems: both set up, the first test command verifies, the other is noted', async () => {
    const proposal = await proposeWorkflow(fixture({ 'package.json': json({ scripts: { test: 'node --test' } }), 'package-lock.json': EMPTY_NPM_LOCK, 'Cargo.toml': '[package]\nname = "p"\n' }));
    expect(setupOf(proposal)).toEqual(['npm ci registries', 'cargo fetch registries']);
    expect(verifierOf(proposal)).toBe('npm test');
    expect(evidenceOf(proposal, 'note')).toContain('Cargo.toml → cargo test is not the verifier: a workflow has one, and npm test comes first');
  });

  it('nothing recognisable: no workflow, WORKFLOW_NOT_RECOGNISED, nothing written', async () => {
    const repo = fixture({ 'README.md': '# notes\n', 'notes/a.txt': 'x\n' });
    const proposal = await proposeWorkflow(repo);
    expect(proposal).toEqual({ repo, workflow: null, worktree_include: [], findings: [] });
    await expect(initRepository(repo, { write: true, force: false })).rejects.toMatchObject({ code: 'WORKFLOW_NOT_RECOGNISED' });
    expect(git(repo, 'status', '--porcelain', '--ignored')).toBe('');
  });

  it('--write writes exactly the proposal, refuses a second write, replaces with force, and leaves an existing .worktreeinclude alone', async () => {
    const repo = fixture({ 'go.mod': 'module example.com/p\n', '.gitignore': '.env*\n' }, { '.env': 'X=1\n', '.env.example': 'X=\n' });
    const first = await initRepository(repo, { write: true, force: false });
    expect(first).toMatchObject({ path: path.join(repo, '.citadel', 'workflow.json'), worktree_include_path: path.join(repo, '.worktreeinclude'), replaced: false });
    expect(JSON.parse(readFileSync(path.join(repo, '.citadel', 'workflow.json'), 'utf8'))).toEqual(first.workflow);
    expect(WorkflowFileSchema.parse(JSON.parse(readFileSync(path.join(repo, '.citadel', 'workflow.json'), 'utf8')))).toEqual(first.workflow);
    expect(readFileSync(path.join(repo, '.worktreeinclude'), 'utf8')).toBe('/.env.example\n');

    writeFileSync(path.join(repo, '.citadel', 'workflow.json'), '{"mine": true}\n');
    writeFileSync(path.join(repo, '.worktreeinclude'), 'config.local\n');
    await expect(initRepository(repo, { write: true, force: false })).rejects.toMatchObject({ code: 'WORKFLOW_FILE_EXISTS' });
    expect(readFileSync(path.join(repo, '.citadel', 'workflow.json'), 'utf8')).toBe('{"mine": true}\n');

    const forced = await initRepository(repo, { write: true, force: true });
    expect(forced).toMatchObject({ replaced: true, worktree_include_path: null });
    expect(JSON.parse(readFileSync(path.join(repo, '.citadel', 'workflow.json'), 'utf8'))).toEqual(forced.workflow);
    expect(readFileSync(path.join(repo, '.worktreeinclude'), 'utf8')).toBe('config.local\n');
  });
});
