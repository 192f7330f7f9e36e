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

const refusal = (text: string): unknown => {
  try {
    assertProjectRegistries(text, OPERATOR);
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

  it('a project folder above the temporary folder (a shared /tmp with package.json and .npmrc) is not taken as the project', async () => {
    const shared = tempDir('citadel-shared-tmp-');
    writeFileSync(path.join(shared, 'package.json'), '{}');
    writeFileSync(path.join(shared, '.npmrc'), 'registry=https://evil.example/\ncache=/tmp/evil-cache\n');
    mkdirSync(path.join(shared, 'tmp'));
    process.env.TMPDIR = path.join(shared, 'tmp');
    const env = { PATH: process.env.PATH, HOME: tempDir('citadel-npm-home-') };
    const config = await readNpmConfig(env);
    expect(config.registry).toBe(OPERATOR);
    expect(config.cache).toBe(path.join(env.HOME, '.npm'));
  });
});
