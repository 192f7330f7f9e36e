import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { parseDoc, type ForkHarness, type ForkStatusDoc } from '../../support/fork-harness';
import type { CliRun } from '../../support/run-cli';

/** Where the layout puts a branch's own repository (main/store/fork-layout.ts branchRepository). */
export function branchGitDir(h: ForkHarness, forkId: string, branchId: string): string {
  return path.join(h.root, 'repositories', forkId, `${branchId}.git`);
}

export function baseStore(h: ForkHarness, forkId: string): string {
  return path.join(h.root, 'repositories', forkId, 'base.git');
}

/** Plain git, as an operator or an agent runs it: repository discovered from the cwd, the user's config read. */
export function plainGit(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 'o', GIT_AUTHOR_EMAIL: 'o@o', GIT_COMMITTER_NAME: 'o', GIT_COMMITTER_EMAIL: 'o@o' },
  });
}

/** Every object id a repository can read (its own objects and its alternates'), replace refs ignored. */
export function readableObjects(gitDir: string): Set<string> {
  const out = execFileSync('git', ['--git-dir', gitDir, '--no-replace-objects', 'cat-file', '--batch-all-objects', '--batch-check=%(objectname)'], { encoding: 'utf8' });
  return new Set(out.split('\n').filter(Boolean));
}

/** The objects a commit adds over the base: commits, trees and blobs reachable from it but not from the base. */
export function objectsAdded(repo: string, commit: string, base: string): string[] {
  return plainGit(repo, 'rev-list', '--objects', commit, '--not', base)
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split(' ')[0]!);
}

/** A script that leaves `marker` behind when anything runs it (as a filter it passes its input through). */
export function markerScript(dir: string, marker: string): string {
  const script = path.join(dir, `plant-${path.basename(marker)}.sh`);
  writeFileSync(script, `#!/bin/sh\ntouch '${marker}'\ncat\n`);
  chmodSync(script, 0o755);
  return script;
}

let runtimeOnly: readonly string[] | null = null;

/**
 * `--containment runtime-only` when the CLI has that flag: these tests plant things through the
 * agent's own writes, which OS containment (when active) would stop before Citadel's git ever ran.
 */
export async function plantingArgs(h: ForkHarness): Promise<readonly string[]> {
  if (runtimeOnly === null) {
    const help = await h.cli(['fork', 'start', '--help']);
    runtimeOnly = `${help.stdout}${help.stderr}`.includes('--containment') ? ['--containment', 'runtime-only'] : [];
  }
  return runtimeOnly;
}

export async function startFork(h: ForkHarness, runtimes: string, extra: readonly string[] = []): Promise<{ run: CliRun; doc: ForkStatusDoc }> {
  const run = await h.cli(['fork', 'start', 'Fix the sum function', '--repo', h.repo, '--runtimes', runtimes, '--workflow', h.workflowFile, ...extra, '--json']);
  const doc = parseDoc(run);
  expect(run.code, `${run.stdout}${run.stderr}`).toBe(0);
  return { run, doc };
}

/** Resolves once some fork's branch has been launched (its supervisor record exists). */
export async function untilLaunched(h: ForkHarness, branchId: string): Promise<string> {
  for (let i = 0; i < 300; i++) {
    const forks = existsSync(path.join(h.root, 'forks')) ? readdirSync(path.join(h.root, 'forks')).filter((f) => f.startsWith('fork-')) : [];
    const launched = forks.find((forkId) => existsSync(h.attemptFile(forkId, branchId, 'run.json')));
    if (launched) return launched;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${branchId} was never launched`);
}
