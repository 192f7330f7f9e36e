import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { BUGGY_SUM, type ForkHarness } from './fork-harness';
import { REPO_ROOT } from './run-cli';

/**
 * The generated npm project of issue 13 (as in test/integration/setup/npm-setup.test.ts): one real
 * dependency, is-number@7.0.0, a committed package-lock.json, and a test that loads it, so the
 * verifier `npm test` passes only with the dependency installed and sum() fixed. Offline-capable:
 * the lock is written literally and the cache is warmed from the registry's own tarball in
 * test/fixtures/npm, for suites without a network (the vendor suite's loopback-only namespace).
 */
export const NPM_PACKAGE_JSON = {
  name: 'sum-project',
  version: '1.0.0',
  private: true,
  type: 'module',
  scripts: { test: 'node --test test/sum.test.js' },
  dependencies: { 'is-number': '7.0.0' },
};

export const NPM_SUM_TEST = [
  "import { test } from 'node:test';",
  "import assert from 'node:assert/strict';",
  "import isNumber from 'is-number';",
  "import { sum } from '../src/sum.js';",
  "test('sum adds', () => {",
  '  assert.ok(isNumber(sum(2, 3)));',
  '  assert.equal(sum(2, 3), 5);',
  '});',
  '',
].join('\n');

export const IS_NUMBER_TARBALL = path.join(REPO_ROOT, 'test', 'fixtures', 'npm', 'is-number-7.0.0.tgz');
const IS_NUMBER_INTEGRITY = 'sha512-41Cifkg6e8TylSpdtTpeLVMqvSBEVzTttHvERD741+pnZ8ANv0004MRL43QKPDlK9cGvNp6NZWZUBlbGXYxxng==';

/** The lock `npm install` writes for NPM_PACKAGE_JSON against the public registry (lockfile v3), with the tarball's registry URL spelled out. */
export const NPM_LOCKFILE = {
  name: NPM_PACKAGE_JSON.name,
  version: NPM_PACKAGE_JSON.version,
  lockfileVersion: 3,
  requires: true,
  packages: {
    '': { name: NPM_PACKAGE_JSON.name, version: NPM_PACKAGE_JSON.version, dependencies: NPM_PACKAGE_JSON.dependencies },
    'node_modules/is-number': {
      version: '7.0.0',
      resolved: 'https://registry.npmjs.org/is-number/-/is-number-7.0.0.tgz',
      integrity: IS_NUMBER_INTEGRITY,
      license: 'MIT',
      engines: { node: '>=0.12.0' },
    },
  },
};

/** Fills the npm cache `cache` with is-number@7.0.0 without a network, so `npm ci --offline` can install the lock. */
export function warmOfflineNpmCache(cache: string): void {
  execFileSync('npm', ['cache', 'add', IS_NUMBER_TARBALL, '--cache', cache, '--offline'], { stdio: 'pipe' });
}

/** Turns the harness's repository into the npm project, committed, with `workflow` in its workflow file. */
export function writeNpmProject(h: ForkHarness, workflow: unknown): void {
  writeFileSync(path.join(h.repo, 'package.json'), `${JSON.stringify(NPM_PACKAGE_JSON, null, 2)}\n`);
  writeFileSync(path.join(h.repo, 'package-lock.json'), `${JSON.stringify(NPM_LOCKFILE, null, 2)}\n`);
  writeFileSync(path.join(h.repo, '.gitignore'), 'node_modules/\n');
  writeFileSync(path.join(h.repo, 'test', 'sum.test.js'), NPM_SUM_TEST);
  writeFileSync(path.join(h.repo, 'src', 'sum.js'), BUGGY_SUM);
  h.gitIn(h.repo, 'add', '-A');
  h.gitIn(h.repo, 'commit', '-q', '-m', 'npm project');
  writeFileSync(h.workflowFile, JSON.stringify(workflow));
}
