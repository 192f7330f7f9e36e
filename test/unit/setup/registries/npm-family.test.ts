/**
 * Issue 30: pnpm, Yarn and bun steps reach the registry the operator's own configuration names
 * (npm's, which pnpm and Yarn 1.x read; Yarn 2+'s ~/.yarnrc.yml; bun's ~/.bunfig.toml), never
 * one the repository's own settings name. npm's own registry is read from npm (package-toolchain.ts);
 * here it is given, as the workflow loader hands it over.
 */
import { describe, expect, it } from 'vitest';
import { bindRegistries, readsNpmrc } from '../../../../main/setup/registries';
import { useTempDirs } from '../../../support/temp-dir';
import { committedOf, operatorEnv, writeTree } from './fixtures';

const tempDir = useTempDirs();
const PUBLIC = { registry: 'https://registry.npmjs.org/', scopes: {} };
const PRIVATE = { registry: 'https://npm.corp.example.com/repository/npm/', scopes: { '@myco:registry': 'https://npm.pkg.github.com/' } };

function bind(command: string, env: Record<string, string>, npm: typeof PUBLIC = PUBLIC, repo: Record<string, string> = {}) {
  return bindRegistries({ command, args: ['install', '--frozen-lockfile'] }, { env, npm: () => Promise.resolve(npm) }, committedOf(repo));
}

function home(files: Record<string, string> = {}): string {
  const dir = tempDir('citadel-npm-family-home-');
  writeTree(dir, files);
  return dir;
}

describe('pnpm, Yarn and bun', () => {
  it("pnpm reaches npm's registry and is told it", async () => {
    expect(await bind('pnpm', operatorEnv(home()))).toEqual({ hosts: ['registry.npmjs.org'], env: { npm_config_registry: 'https://registry.npmjs.org/' } });
    expect((await bind('pnpm', operatorEnv(home()), PRIVATE)).hosts).toEqual(['npm.corp.example.com']);
    expect(['npm', 'pnpm', 'yarn', 'bun', 'pip'].map((command) => readsNpmrc({ command, args: [] }))).toEqual([true, true, true, true, false]);
  });

  it("Yarn: npm's registry (1.x), ~/.yarnrc.yml npmRegistryServer or YARN_NPM_REGISTRY_SERVER (2+), registry.yarnpkg.com as their defaults", async () => {
    expect(await bind('yarn', operatorEnv(home()))).toEqual({
      hosts: ['registry.npmjs.org', 'registry.yarnpkg.com'],
      env: { npm_config_registry: 'https://registry.npmjs.org/', YARN_NPM_REGISTRY_SERVER: 'https://registry.yarnpkg.com' },
    });
    const dir = home({ '.yarnrc.yml': 'enableTelemetry: false\nnpmRegistryServer: "https://yarn.corp.example.com"\nnpmScopes:\n  myco:\n    npmRegistryServer: "https://scoped.example.com"\n' });
    expect(await bind('yarn', operatorEnv(dir), PRIVATE)).toEqual({
      hosts: ['npm.corp.example.com', 'yarn.corp.example.com'],
      env: { npm_config_registry: PRIVATE.registry, YARN_NPM_REGISTRY_SERVER: 'https://yarn.corp.example.com' },
    });
    expect((await bind('yarn', operatorEnv(dir, { YARN_NPM_REGISTRY_SERVER: 'https://env.example.com' }), PRIVATE)).hosts).toEqual(['npm.corp.example.com', 'env.example.com']);
  });

  it("bun: BUN_CONFIG_REGISTRY, else the operator's bunfig [install] registry (a URL or { url }), else npm's", async () => {
    expect(await bind('bun', operatorEnv(home()))).toEqual({ hosts: ['registry.npmjs.org'], env: { BUN_CONFIG_REGISTRY: 'https://registry.npmjs.org/' } });
    expect((await bind('bun', operatorEnv(home()), PRIVATE)).hosts).toEqual(['npm.corp.example.com']);
    expect((await bind('bun', operatorEnv(home({ '.bunfig.toml': '[install]\nregistry = "https://bun.example.com/"\n' })))).hosts).toEqual(['bun.example.com']);
    expect((await bind('bun', operatorEnv(home({ '.config/.bunfig.toml': '[install.registry]\nurl = "https://xdg.example.com/"\ntoken = "t"\n' })))).hosts).toEqual(['xdg.example.com']);
    expect((await bind('bun', operatorEnv(home(), { BUN_CONFIG_REGISTRY: 'https://env.example.com/' }))).env).toEqual({ BUN_CONFIG_REGISTRY: 'https://env.example.com/' });
  });

  it('a registry that is not an https host name on 443 is refused, naming the tool and the setting', async () => {
    const dir = home({ '.bunfig.toml': '[install]\nregistry = "http://bun.example.com/"\n' });
    await expect(bind('bun', operatorEnv(dir))).rejects.toMatchObject({ code: 'SETUP_REGISTRY_UNSUPPORTED', message: expect.stringContaining(`bun: ${dir}/.bunfig.toml [install] registry names http://bun.example.com`) });
    await expect(bind('yarn', operatorEnv(home(), { YARN_NPM_REGISTRY_SERVER: 'https://127.0.0.1:4873' }))).rejects.toMatchObject({ message: expect.stringContaining('yarn: YARN_NPM_REGISTRY_SERVER names https://127.0.0.1:4873') });
    await expect(bind('pnpm', operatorEnv(home()), { registry: 'https://npm.example.com:8443/', scopes: {} })).rejects.toMatchObject({ message: expect.stringContaining("pnpm: npm's configured registry") });
  });

  it("the repository's .yarnrc, .yarnrc.yml, pnpm-workspace.yaml or bunfig.toml naming another registry is refused; the operator's own is accepted", async () => {
    const env = operatorEnv(home());
    const refused: [string, Record<string, string>, string][] = [
      ['yarn', { '.yarnrc.yml': 'nodeLinker: node-modules\nnpmRegistryServer: "https://evil.example"\n' }, 'yarn: .yarnrc.yml:2 sets npmRegistryServer to https://evil.example'],
      ['yarn', { '.yarnrc.yml': 'npmScopes:\n  evil:\n    npmRegistryServer: https://evil.example\n' }, 'yarn: .yarnrc.yml:3'],
      ['yarn', { '.yarnrc': '# yarn lockfile v1\nregistry "https://evil.example/"\n' }, 'yarn: .yarnrc:2 sets registry'],
      ['yarn', { '.yarnrc': '"@evil:registry" "https://evil.example/"\n' }, 'yarn: .yarnrc:1 sets @evil:registry'],
      ['pnpm', { 'pnpm-workspace.yaml': 'packages:\n  - "packages/*"\nregistry: https://evil.example/\n' }, 'pnpm: pnpm-workspace.yaml:3 sets registry'],
      ['bun', { 'bunfig.toml': '[install]\nregistry = "https://evil.example/"\n' }, 'bun: bunfig.toml sets [install] registry'],
      ['bun', { 'bunfig.toml': '[install.scopes]\nevil = { url = "https://evil.example/" }\n' }, 'bun: bunfig.toml sets [install.scopes] evil'],
    ];
    for (const [command, repo, message] of refused) {
      await expect(bind(command, env, PUBLIC, repo), message).rejects.toMatchObject({ code: 'SETUP_REGISTRY_UNSUPPORTED', message: expect.stringContaining(message) });
    }
    const accepted: [string, Record<string, string>][] = [
      ['yarn', { '.yarnrc.yml': 'npmRegistryServer: "https://registry.yarnpkg.com"\n', '.yarnrc': 'registry "https://registry.npmjs.org"\n' }],
      ['pnpm', { 'pnpm-workspace.yaml': 'packages:\n  - "apps/*"\n' }],
      ['bun', { 'bunfig.toml': '[install]\nregistry = "https://registry.npmjs.org"\n[test]\npreload = ["./setup.ts"]\n' }],
    ];
    for (const [command, repo] of accepted) expect((await bind(command, env, PUBLIC, repo)).hosts.length, command).toBeGreaterThan(0);
    expect((await bind('bun', env, PRIVATE, { 'bunfig.toml': '[install.scopes]\nmyco = "https://npm.pkg.github.com/"\n' })).hosts).toEqual(['npm.corp.example.com']);
  });
});
