/**
 * Review 30 F7: `citadel init` prints what it found in the repository (its `scripts.test`, file
 * names, CI) and CLI errors quote repository text; a terminal must show that text, never act on it
 * (clear the screen, set its title, reorder what it shows). Human output strips the controls and
 * keeps each field on its line; `--json` keeps every value exact, the controls JSON leaves raw
 * written as \u escapes.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { printError, type Io } from '../../../main/cli/io/output';
import { CitadelError } from '../../../shared/errors';
import { runCli } from '../../support/run-cli';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
/** Erase the screen, an OSC that sets the title, a C1 CSI, a right-to-left override, and a line break that would forge a line. */
const HOSTILE = 'jest \u001b[2J\u001b]0;owned\u0007 \u009b31m \u202eevil\nwrote /etc/passwd';
// eslint-disable-next-line no-control-regex
const ACTED_ON = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

function repository(name: string): string {
  const repo = path.join(tempDir('citadel-init-controls-'), name);
  mkdirSync(repo, { recursive: true });
  writeFileSync(path.join(repo, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', scripts: { test: HOSTILE } }));
  writeFileSync(path.join(repo, 'package-lock.json'), JSON.stringify({ name: 'p', lockfileVersion: 3, packages: {} }));
  const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
  for (const args of [['init', '-q', '-b', 'main'], ['add', '-A'], ['commit', '-q', '-m', 'fixture']]) execFileSync('git', args, { cwd: repo, env });
  return repo;
}

describe('repository text on the terminal', () => {
  it('citadel init prints the findings, its paths and errors without a control a terminal acts on; --json keeps the exact text', async () => {
    const repo = repository('repo\u001b]0;title\u0007\u202e');
    const human = await runCli(['init', '--repo', repo]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain('package.json scripts.test: jest [2J]0;owned 31m evil wrote /etc/passwd → npm test');
    expect(human.stdout).not.toMatch(ACTED_ON);
    expect(human.stdout.split('\n').filter((line) => line.startsWith('wrote'))).toEqual([]);

    const json = await runCli(['init', '--repo', repo, '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).not.toMatch(ACTED_ON);
    const doc = JSON.parse(json.stdout) as { repo: string; findings: { evidence: string }[] };
    expect(doc.findings.map((finding) => finding.evidence)).toContain(`package.json scripts.test: ${HOSTILE}`);

    mkdirSync(path.join(repo, '.citadel'));
    writeFileSync(path.join(repo, '.citadel', 'workflow.json'), '{}\n');
    const refused = await runCli(['init', '--repo', repo, '--write']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('citadel: WORKFLOW_FILE_EXISTS:');
    expect(refused.stderr).not.toMatch(ACTED_ON);
    const refusedJson = await runCli(['init', '--repo', repo, '--write', '--json']);
    expect(refusedJson.stdout).not.toMatch(ACTED_ON);
    expect((JSON.parse(refusedJson.stdout) as { error: { details: { path: string } } }).error.details.path).toBe(path.join(repo, '.citadel', 'workflow.json'));
  });

  it("an error's violations are printed one line each, without controls", () => {
    let stderr = '';
    const io: Io = { stdout: () => undefined, stderr: (text) => void (stderr += text) };
    printError(io, new CitadelError('WORKFLOW_FILE_INVALID', `bad \u001b[2J file\ncitadel: forged`, { violations: [{ path: `setup.0.args\u202e`, rule: 'type', message: `x\u001b]8;;https://evil.example\u0007y\nforged` }] }), false);
    expect(stderr).not.toMatch(ACTED_ON);
    expect(stderr.split('\n').filter((line) => line.startsWith('citadel:'))).toHaveLength(1);
    expect(stderr).toContain('  setup.0.args  type  x]8;;https://evil.exampley forged');
  });
});
