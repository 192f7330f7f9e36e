/**
 * Nothing an agent writes runs, or changes anything, in Citadel's own git commands (issue 11 §4):
 * a rewritten `.git` file, an embedded repository, a `filter.*.clean` or `core.fsmonitor` in the
 * branch repository's config, a replace ref. Each plant comes with its control: the same plant DOES
 * run (or take effect) under a plain `git add -A && git status` in the worktree, so the test can fail.
 * The forks run `--containment runtime-only` (when the CLI has it): planting needs the agent to
 * write its git dir, which OS containment would stop before Citadel's git ever ran.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { branch, FIXED_SUM, ForkHarness, type ForkStatusDoc } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';
import { markerScript, plainGit, plantingArgs, startFork } from './layout-fixture';

const tempDir = useTempDirs();
const FIX = { path: 'src/sum.js', content: FIXED_SUM };

interface Planted {
  h: ForkHarness;
  doc: ForkStatusDoc;
  worktree: string;
  marker: string;
}

/** A fork whose claude branch fixes the bug and plants `plant` (edits and commands); codex only fixes it. */
async function plantedFork(plant: (marker: string, script: string, h: ForkHarness) => { edits?: { path: string; content: string }[]; commands?: string[][] }): Promise<Planted> {
  const h = new ForkHarness(tempDir());
  const marker = path.join(h.base, 'PLANTED-RAN');
  const script = markerScript(h.base, marker);
  const planted = plant(marker, script, h);
  await h.simulate({ claude: { edits: [FIX, ...(planted.edits ?? [])], ...(planted.commands ? { commands: planted.commands } : {}) }, codex: { edits: [FIX] } });
  const { doc } = await startFork(h, 'claude,codex', await plantingArgs(h));
  expect(branch(doc, 'branch-codex')).toMatchObject({ state: 'passed', failure_code: null });
  return { h, doc, worktree: h.worktree(doc.fork_id, 'branch-claude'), marker };
}

const receipt = (p: Planted) =>
  p.h.readJson<{ receipt: { result_commit: string | null; result_tree: string | null } }>(p.h.attemptFile(p.doc.fork_id, 'branch-claude', 'execution-receipt.json')).receipt;
const delivered = (p: Planted, what: string) => plainGit(p.h.repo, 'rev-parse', `citadel/${p.doc.fork_id}/branch-claude${what}`).trim();
const violationsOf = (p: Planted) => p.h.readJson<{ violations: { kind: string; subject: string }[] }>(p.h.attemptFile(p.doc.fork_id, 'branch-claude', 'containment.json')).violations;

/** The control: what an operator (or a naive host tool) would run in the worktree. */
function plainAddAndStatus(worktree: string): void {
  plainGit(worktree, 'add', '-A');
  plainGit(worktree, 'status');
}

describe('planted git state runs nothing in Citadel\'s own git commands', () => {
  it('a rewritten .git file: Citadel uses its own record of the git dir; the planted filter and fsmonitor never run', { timeout: 120_000 }, async () => {
    const p = await plantedFork((_marker, script, h) => {
      // A repository of the agent's making, with a filter and an fsmonitor that leave the marker.
      const evil = path.join(h.base, 'evil');
      mkdirSync(evil);
      execFileSync('git', ['init', '-q', evil]);
      execFileSync('git', ['-C', evil, 'config', 'filter.evil.clean', script]);
      execFileSync('git', ['-C', evil, 'config', 'core.fsmonitor', script]);
      return { edits: [{ path: '.git', content: `gitdir: ${path.join(evil, '.git')}\n` }, { path: '.gitattributes', content: '* filter=evil\n' }] };
    });
    // Committed and delivered, but not verified: the verifier's own git would read the agent's repository (issue 12).
    expect(branch(p.doc, 'branch-claude')).toMatchObject({ state: 'failed', failure_code: 'VERIFICATION_TREE_MISMATCH' });
    expect(existsSync(p.marker)).toBe(false);
    // What was committed is what was delivered: the worktree's files, through Citadel's own git dir.
    const verified = receipt(p);
    expect(delivered(p, '')).toBe(verified.result_commit);
    expect(delivered(p, '^{tree}')).toBe(verified.result_tree);
    expect(plainGit(p.h.repo, 'show', `citadel/${p.doc.fork_id}/branch-claude:src/sum.js`)).toBe(FIXED_SUM);
    expect(plainGit(p.h.repo, 'ls-tree', '--name-only', `citadel/${p.doc.fork_id}/branch-claude`).split('\n')).not.toContain('.git');

    plainAddAndStatus(p.worktree);
    expect(existsSync(p.marker)).toBe(true);
  });

  it('an embedded repository with its own fsmonitor: Citadel never descends into it', { timeout: 120_000 }, async () => {
    const p = await plantedFork((_marker, script) => ({
      commands: [
        [
          'sh',
          '-c',
          `mkdir sub && cd sub && git init -q && echo a > f && git add f && git -c user.name=a -c user.email=a@a commit -q -m embedded && git config core.fsmonitor '${script}' && echo b > f`,
        ],
      ],
    }));
    // The result holds sub only as a commit id, so the files the verifier would see there never land (issue 12).
    expect(branch(p.doc, 'branch-claude')).toMatchObject({ state: 'failed', failure_code: 'VERIFICATION_TREE_MISMATCH' });
    expect(existsSync(p.marker)).toBe(false);
    const verified = receipt(p);
    expect(delivered(p, '^{tree}')).toBe(verified.result_tree);
    // Recorded as a gitlink, as `git add -A` does, without running anything in it.
    expect(plainGit(p.h.repo, 'ls-tree', `citadel/${p.doc.fork_id}/branch-claude`, 'sub')).toMatch(/^160000 commit /);

    plainAddAndStatus(p.worktree);
    expect(existsSync(p.marker)).toBe(true);
  });

  it('a filter.*.clean planted in the branch repository config: the recheck fails that branch before Citadel stages anything', { timeout: 120_000 }, async () => {
    const p = await plantedFork((_marker, script) => ({
      edits: [{ path: '.gitattributes', content: '* filter=evil\n' }],
      commands: [['git', 'config', 'filter.evil.clean', script]],
    }));
    expect(branch(p.doc, 'branch-claude')).toMatchObject({ state: 'failed', failure_code: 'WORKTREE_CONTAINMENT_VIOLATION' });
    expect(violationsOf(p)).toEqual([expect.objectContaining({ kind: 'git_metadata_changed', subject: 'config' })]);
    expect(existsSync(p.marker)).toBe(false);
    expect(receipt(p).result_commit).toBeNull();
    expect(delivered(p, '')).toBe(plainGit(p.h.repo, 'rev-parse', 'HEAD').trim());

    plainAddAndStatus(p.worktree);
    expect(existsSync(p.marker)).toBe(true);
  });

  it('a core.fsmonitor planted in the branch repository config: it never runs in Citadel\'s commands', { timeout: 120_000 }, async () => {
    const p = await plantedFork((_marker, script) => ({ commands: [['git', 'config', 'core.fsmonitor', script]] }));
    expect(branch(p.doc, 'branch-claude')).toMatchObject({ state: 'failed', failure_code: 'WORKTREE_CONTAINMENT_VIOLATION' });
    expect(violationsOf(p)).toEqual([expect.objectContaining({ kind: 'git_metadata_changed', subject: 'config' })]);
    expect(existsSync(p.marker)).toBe(false);

    plainAddAndStatus(p.worktree);
    expect(existsSync(p.marker)).toBe(true);
  });

  it('a replace ref: recorded as that branch\'s violation, and nothing of the replacement is delivered', { timeout: 120_000 }, async () => {
    const p = await plantedFork(() => ({
      commands: [
        [
          'sh',
          '-c',
          'echo replaced > replaced.txt && git add replaced.txt && c=$(git -c user.name=a -c user.email=a@a commit-tree -m replaced -p HEAD $(git write-tree)) && git replace -f HEAD $c && git rm -q --cached replaced.txt && rm replaced.txt',
        ],
      ],
    }));
    expect(branch(p.doc, 'branch-claude')).toMatchObject({ state: 'failed', failure_code: 'WORKTREE_CONTAINMENT_VIOLATION' });
    const base = plainGit(p.h.repo, 'rev-parse', 'HEAD').trim();
    expect(violationsOf(p)).toEqual([expect.objectContaining({ kind: 'ref_created', subject: `refs/replace/${base}` })]);
    expect(delivered(p, '')).toBe(base);
    expect(plainGit(p.h.repo, 'ls-tree', '--name-only', `citadel/${p.doc.fork_id}/branch-claude`)).not.toContain('replaced.txt');

    // The control: through the replace ref, plain git in the worktree sees the replacement's tree.
    expect(plainGit(p.worktree, 'ls-tree', '--name-only', 'HEAD')).toContain('replaced.txt');
  });
});
