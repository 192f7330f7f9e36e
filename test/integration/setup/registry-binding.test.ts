/**
 * Issue 30: a workflow whose setup installs with pnpm, pip, uv, Poetry, Yarn, bun, Go or Cargo binds
 * each `registries` step, through `loadWorkflow` and a real repository, to the hosts the operator's
 * own configuration of that toolchain names; the repository's committed settings cannot widen them.
 * Only npm's registry is reachable from the build machine: no tool runs here, the binding is what is proven.
 */
import { symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SetupStep } from '../../../shared/fork/workflow';
import type { ContainmentTemplate } from '../../../shared/sandbox/containment-policy';
import { loadWorkflow } from '../../../main/orchestrator/load-workflow';
import { npmConfigOnce } from '../../../main/setup/package-toolchain';
import { registryEnv } from '../../../main/setup/registries';
import { NPM_ENV_NAMES, setupTemplate } from '../../../main/setup/setup-template';
import { git, refusalOf, write } from '../../support/include-repository';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

const step = (id: string, command: string, args: string[], network: 'registries' | 'none' = 'registries') => ({ id, command, args, timeout_seconds: 600, network });
const STEPS = [
  step('npm', 'npm', ['ci']),
  step('pnpm', 'pnpm', ['install', '--frozen-lockfile']),
  step('yarn', 'yarn', ['install', '--immutable']),
  step('bun', 'bun', ['install', '--frozen-lockfile']),
  step('pip', 'python3', ['-m', 'pip', 'install', '-r', 'requirements.txt']),
  step('uv', 'uv', ['sync', '--frozen']),
  step('poetry', 'poetry', ['install', '--no-root']),
  step('go', 'go', ['mod', 'download']),
  step('cargo', 'cargo', ['fetch']),
  step('offline', 'go', ['build', './...'], 'none'),
];
const WORKFLOW = { schema_version: 2, steps: [{ id: 'fix', instruction: 'Fix it.' }], verifier: { command: 'npm', args: ['test'], timeout_seconds: 60 }, protected_paths: [], setup: STEPS };

/** A repository with each ecosystem's manifest committed, and `extra` committed on top. */
function repository(extra: Record<string, string> = {}): string {
  const root = tempDir('citadel-registry-repo-');
  const files: Record<string, string> = {
    'package.json': '{"name":"demo","version":"1.0.0"}\n',
    'requirements.txt': 'requests==2.32.3\n',
    'pyproject.toml': '[project]\nname = "demo"\nversion = "0.1.0"\n',
    'uv.lock': 'version = 1\n[[package]]\nname = "requests"\nsource = { registry = "https://pypi.org/simple" }\n',
    'go.mod': 'module example.com/demo\n\ngo 1.22\n',
    'Cargo.toml': '[package]\nname = "demo"\nversion = "0.1.0"\n',
    ...extra,
  };
  for (const [file, text] of Object.entries(files)) write(root, file, text);
  git(root, 'init', '-q', '-b', 'main');
  git(root, 'add', '.');
  git(root, 'commit', '-q', '-m', 'initial');
  write(root, 'workflow.json', JSON.stringify(WORKFLOW));
  return root;
}

/** The operator's environment: a home of its own holding `files`, no system folders of this machine's. */
function operator(files: Record<string, string> = {}): Record<string, string | undefined> {
  const home = tempDir('citadel-registry-home-');
  for (const [file, text] of Object.entries(files)) write(home, file, text);
  return { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_CONFIG_DIRS: path.join(home, 'etc-xdg') };
}

async function bound(root: string, env: Record<string, string | undefined>): Promise<Record<string, readonly string[]>> {
  const loaded = await loadWorkflow(path.join(root, 'workflow.json'), root, env);
  return Object.fromEntries((loaded.workflow.setup ?? []).map((s) => [s.id, s.registry_hosts]));
}

const VERIFIER: ContainmentTemplate = {
  backend: 'bubblewrap',
  read_only: ['toolchain', 'git-metadata'],
  read_write: ['worktree'],
  tmpfs: [],
  env_names: ['HOME', 'PATH', 'TMPDIR'],
  egress: { kind: 'none' },
  cwd: 'worktree',
};

describe('registries of the ecosystems citadel init proposes', () => {
  it("unconfigured, each step is bound to its toolchain's public registry; a step without network to none", async () => {
    expect(await bound(repository(), operator())).toEqual({
      npm: ['registry.npmjs.org'],
      pnpm: ['registry.npmjs.org'],
      yarn: ['registry.npmjs.org', 'registry.yarnpkg.com'],
      bun: ['registry.npmjs.org'],
      pip: ['pypi.org', 'files.pythonhosted.org'],
      uv: ['pypi.org', 'files.pythonhosted.org'],
      poetry: ['pypi.org', 'files.pythonhosted.org'],
      go: ['proxy.golang.org', 'sum.golang.org'],
      cargo: ['index.crates.io', 'static.crates.io'],
      offline: [],
    });
  });

  it("configured, each follows the operator's own settings (npm's read by npm itself), and the contained step is told them", async () => {
    const env = operator({
      '.npmrc': 'registry=https://npm.corp.example.com/\n',
      '.config/pip/pip.conf': '[global]\nindex-url = https://pypi.corp.example.com/simple\n',
      '.config/uv/uv.toml': '[[index]]\nurl = "https://pypi.corp.example.com/simple"\ndefault = true\n',
      '.config/go/env': 'GOPROXY=https://goproxy.corp.example.com\nGOSUMDB=off\n',
      '.cargo/config.toml': '[source.crates-io]\nreplace-with = "corp"\n[source.corp]\nregistry = "sparse+https://cargo.corp.example.com/index/"\n',
    });
    // The lockfile was resolved against the operator's index.
    const root = repository({ 'uv.lock': 'version = 1\n[[package]]\nname = "requests"\nsource = { registry = "https://pypi.corp.example.com/simple" }\n' });
    const hosts = await bound(root, env);
    expect(hosts).toMatchObject({
      npm: ['npm.corp.example.com'],
      pnpm: ['npm.corp.example.com'],
      yarn: ['npm.corp.example.com', 'registry.yarnpkg.com'],
      bun: ['npm.corp.example.com'],
      pip: ['pypi.corp.example.com'],
      uv: ['pypi.corp.example.com'],
      go: ['goproxy.corp.example.com'],
      cargo: ['cargo.corp.example.com'],
    });
    const context = { env, npm: npmConfigOnce(env) };
    const byId = (id: string) => {
      const found = STEPS.find((s) => s.id === id);
      if (found === undefined) throw new Error(`no step ${id}`);
      return found;
    };
    expect(await registryEnv(byId('pip'), context)).toEqual({ PIP_INDEX_URL: 'https://pypi.corp.example.com/simple' });
    expect(await registryEnv(byId('pnpm'), context)).toEqual({ npm_config_registry: 'https://npm.corp.example.com/' });
    expect(await registryEnv(byId('go'), context)).toMatchObject({ GOPROXY: 'https://goproxy.corp.example.com', GOSUMDB: 'off' });
  });

  it("the setup template names each toolchain's settings and its hosts; an npm step's template is what it was", async () => {
    const root = repository();
    const loaded = await loadWorkflow(path.join(root, 'workflow.json'), root, operator());
    const steps = new Map((loaded.workflow.setup ?? []).map((s): [string, SetupStep] => [s.id, s]));
    const template = (id: string) => setupTemplate(VERIFIER, steps.get(id) as SetupStep);
    expect(template('npm')).toEqual({ ...VERIFIER, read_write: ['worktree', 'package-cache'], env_names: [...VERIFIER.env_names, ...NPM_ENV_NAMES, 'CITADEL_PORT'].sort(), egress: { kind: 'cloud', hosts: ['registry.npmjs.org'] } });
    expect(template('pip')).toEqual({ ...VERIFIER, env_names: ['CITADEL_PORT', 'HOME', 'PATH', 'PIP_EXTRA_INDEX_URL', 'PIP_INDEX_URL', 'TMPDIR'], egress: { kind: 'cloud', hosts: ['pypi.org', 'files.pythonhosted.org'] } });
    expect(template('go').env_names).toEqual(['CITADEL_PORT', 'GONOPROXY', 'GONOSUMDB', 'GOPRIVATE', 'GOPROXY', 'GOSUMDB', 'HOME', 'PATH', 'TMPDIR']);
    expect(template('offline')).toEqual({ ...VERIFIER, env_names: ['CITADEL_PORT', 'HOME', 'PATH', 'TMPDIR'], egress: { kind: 'none' } });
  });

  it("the repository's committed settings naming another registry are refused; an uncommitted file is not what worktrees get", async () => {
    const env = operator();
    const refused: [Record<string, string>, string][] = [
      [{ '.cargo/config.toml': '[source.crates-io]\nreplace-with = "evil"\n[source.evil]\nregistry = "sparse+https://evil.example/"\n' }, 'cargo: .cargo/config.toml [source.evil]'],
      [{ 'requirements.txt': '--extra-index-url https://evil.example/simple\nrequests\n' }, 'pip: requirements.txt:1 sets --extra-index-url'],
      [{ 'requirements.txt': '--extra-index https://evil2.example/simple\nnosuchpkg-zz\n' }, 'pip: requirements.txt:1 sets --extra-index (--extra-index-url) https://evil2.example/simple'],
      [{ 'pyproject.toml': '[project]\nname = "demo"\n[[tool.poetry.source]]\nname = "evil"\nurl = "https://evil.example/simple"\n' }, 'poetry: pyproject.toml [[tool.poetry.source]] evil'],
      [{ '.yarnrc.yml': 'npmRegistryServer: "https://evil.example"\n' }, 'yarn: .yarnrc.yml:1'],
      [{ '.npmrc': 'registry=https://evil.example/\n' }, '.npmrc:1 sets registry'],
    ];
    for (const [files, message] of refused) {
      const error = await refusalOf(bound(repository(files), env));
      expect({ code: error.code, message: error.message }, message).toMatchObject({ code: 'SETUP_REGISTRY_UNSUPPORTED', message: expect.stringContaining(message) });
    }
    const root = repository();
    write(root, '.cargo/config.toml', '[source.crates-io]\nreplace-with = "evil"\n[source.evil]\nregistry = "sparse+https://evil.example/"\n');
    expect((await bound(root, env)).cargo).toEqual(['index.crates.io', 'static.crates.io']);
    const linked = repository();
    symlinkSync('/etc/hostname', path.join(linked, 'bunfig.toml'));
    git(linked, 'add', 'bunfig.toml');
    git(linked, 'commit', '-q', '-m', 'link');
    expect((await refusalOf(bound(linked, env))).message).toContain('bunfig.toml is a symlink');
  });
  it('review 30 F3: an operator index URL with credentials is refused by loadWorkflow, never bound or told to the step, and not printed', async () => {
    const root = repository();
    for (const env of [
      { ...operator(), PIP_INDEX_URL: 'https://ci-bot:S3CRET-TOKEN@pypi.example.org/simple' },
      operator({ '.config/pip/pip.conf': '[global]\nindex-url = https://S3CRET-TOKEN@pypi.example.org/simple\n' }),
    ]) {
      const error = await refusalOf(bound(root, env));
      expect(error).toMatchObject({ code: 'SETUP_REGISTRY_UNSUPPORTED', message: expect.stringContaining('names https://pypi.example.org with credentials') });
      expect(error.message).toContain('credentials are not passed into setup');
      expect(JSON.stringify({ message: error.message, details: error.details })).not.toContain('S3CRET-TOKEN');
    }
  });

  it("an operator pip.conf with a local file:// extra index is refused with what to do, not 'names null'", async () => {
    const env = operator({ '.config/pip/pip.conf': '[global]\nextra-index-url = file:///srv/wheels\n' });
    const error = await refusalOf(bound(repository(), env));
    expect(error.code).toBe('SETUP_REGISTRY_UNSUPPORTED');
    expect(error.message).toContain('[global] extra-index-url names a local file:// index, not a registry host');
    expect(error.message).toContain('"network": "none"');
    expect(error.message).not.toContain('null');
  });
});
