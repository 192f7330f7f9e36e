import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../support/run-cli';

/**
 * Issue 30, item 1: `npm run demo` checks the OS packages its contained fork needs before it builds
 * anything, with the script `npm test` uses. Where it cannot install them (here: no apt-get on
 * PATH) it stops with the one command to run, never a stack trace.
 */

const SCRIPT = path.join(REPO_ROOT, 'test', 'support', 'ensure-os-packages.sh');
const scratch = mkdtempSync(path.join(tmpdir(), 'citadel-demo-packages-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A PATH holding only the named commands (as links to this machine's own), so the rest are missing. */
function pathWith(name: string, commands: readonly string[]): string {
  const dir = path.join(scratch, name);
  mkdirSync(dir, { recursive: true });
  for (const command of commands) {
    const found = spawnSync('bash', ['-c', `command -v ${command}`], { encoding: 'utf8' }).stdout.trim();
    expect(found, `${command} is on this machine`).not.toBe('');
    symlinkSync(found, path.join(dir, command));
  }
  return dir;
}

const ensureDemo = (PATH: string) => spawnSync('/bin/bash', [SCRIPT, 'demo'], { encoding: 'utf8', env: { PATH } });

describe('the demo ensures its OS packages', () => {
  it('is what npm run demo runs first', () => {
    const scripts = (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.demo).toMatch(/^bash test\/support\/ensure-os-packages\.sh demo && /);
  });

  it('without bubblewrap and with no way to install it, stops with the command to run', () => {
    const run = ensureDemo(pathWith('no-bwrap', ['git', 'id']));
    expect(run.status).toBe(1);
    expect(run.stderr).toBe('ensure-os-packages: the demo needs these packages: bubblewrap\nRun: sudo apt-get install -y --no-install-recommends bubblewrap\n');
    expect(run.stdout).toBe('');
  });

  it('control: with git and bubblewrap present it passes, asking nothing of the test-only packages', () => {
    const run = ensureDemo(pathWith('demo-set', ['git', 'bwrap', 'id']));
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it('refuses a purpose it does not know', () => {
    const run = spawnSync('/bin/bash', [SCRIPT, 'everything'], { encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("unknown purpose 'everything'");
  });
});
