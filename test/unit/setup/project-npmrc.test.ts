/**
 * Issue 27: npm's settings for setup are the operator's alone. A repository's `.npmrc` naming
 * another registry is refused with its file and line, however npm's ini reader would spell the key;
 * and reading the operator's settings cannot pick up a project folder above Citadel's empty one.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readNpmConfig } from '../../../main/setup/package-toolchain';
import { assertProjectRegistries } from '../../../main/setup/project-npmrc';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const OPERATOR = 'https://registry.npmjs.org/';

const refusal = (text: string, scopes: Record<string, string> = {}): unknown => {
  try {
    assertProjectRegistries(text, { registry: OPERATOR, scopes });
    return null;
  } catch (error) {
    return error;
  }
};

describe("a repository's .npmrc and the registry", () => {
  it('refuses every spelling of a registry key that names another host, with the line', () => {
    const lines = ['registry=https://evil.example/', '@evil:registry = https://evil.example/', '"@evil:registry" = https://evil.example/', "'registry'=https://evil.example/", 'registry[] = https://evil.example/', 'REGISTRY=https://evil.example/', 'registry=${EVIL}', 'registry=http://registry.npmjs.org/'];
    for (const line of lines) {
      expect(refusal(`; settings\n\n${line}\n`), line).toMatchObject({ code: 'SETUP_REGISTRY_UNSUPPORTED', details: { file: '.npmrc', line: 3 } });
    }
  });

  it("a scope's registry is accepted where the operator's own configuration names it for that scope, not for another", () => {
    const scopes = { '@myco:registry': 'https://npm.pkg.github.com/' };
    expect(refusal('@myco:registry=https://npm.pkg.github.com', scopes)).toBeNull();
    expect(refusal('@other:registry=https://npm.pkg.github.com/', scopes)).toMatchObject({ code: 'SETUP_REGISTRY_UNSUPPORTED', details: { line: 1 } });
    expect(refusal('registry=https://npm.pkg.github.com/', scopes)).toMatchObject({ code: 'SETUP_REGISTRY_UNSUPPORTED' });
    expect(String((refusal('@myco:registry=https://npm.pkg.github.com/') as Error).message)).toContain('set @myco:registry=https://npm.pkg.github.com in your own ~/.npmrc');
  });

  it('another settings file named by the repository is refused: npm would read registries from it', () => {
    for (const line of ['userconfig=./evil', 'globalconfig = /tmp/evil', '"userconfig"=evil']) {
      expect(refusal(`${line}\n`), line).toMatchObject({ code: 'SETUP_REGISTRY_UNSUPPORTED', details: { line: 1 } });
    }
  });

  it("accepts the operator's own registry and settings that are not a registry", () => {
    for (const text of ['registry=https://registry.npmjs.org/', '@acme:registry=https://registry.npmjs.org', 'cache=/home/op', 'save-exact=true\n# registry=https://evil.example/', '//evil.example/:_authToken=x']) {
      expect(refusal(text), text).toBeNull();
    }
  });
});

describe("reading the operator's npm settings", () => {
  const saved = process.env.TMPDIR;
  afterEach(() => {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  });

  it("a project folder above the temporary folder (a shared /tmp with package.json and .npmrc) is not taken as the project; the operator's scopes are read", async () => {
    const shared = tempDir('citadel-shared-tmp-');
    writeFileSync(path.join(shared, 'package.json'), '{}');
    writeFileSync(path.join(shared, '.npmrc'), 'registry=https://evil.example/\ncache=/tmp/evil-cache\n');
    mkdirSync(path.join(shared, 'tmp'));
    process.env.TMPDIR = path.join(shared, 'tmp');
    const env = { PATH: process.env.PATH, HOME: tempDir('citadel-npm-home-') };
    writeFileSync(path.join(env.HOME, '.npmrc'), '@myco:registry=https://npm.pkg.github.com/\n//npm.pkg.github.com/:_authToken=secret-token\n');
    const config = await readNpmConfig(env);
    expect(config.registry).toBe(OPERATOR);
    expect(config.cache).toBe(path.join(env.HOME, '.npm'));
    expect(config.scopes).toEqual({ '@myco:registry': 'https://npm.pkg.github.com/' });
    expect(JSON.stringify(config)).not.toContain('secret-token');
  });
});
