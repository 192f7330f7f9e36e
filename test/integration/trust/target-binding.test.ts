/**
 * The target repository is bound into the contract (issue 12, item 2): request.json's `repo` is
 * unsigned, so editing it to point at a copy of the target (same commits, same branch names) must
 * be refused by `fork land` (its checks and `--confirm`) and by `fork clean`, changing nothing in
 * either repository. The control: the untouched fork lands.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXED_SUM, ForkHarness, parseDoc, WRONG_SUM } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const env = { CITADEL_KEYSTORE: 'file' };

interface LandDoc {
  readonly checks: { name: string; ok: boolean; reason: string | null }[];
  readonly token: string | null;
}

const refs = (h: ForkHarness, repo: string): string => h.gitIn(repo, 'for-each-ref', '--format=%(refname) %(objectname)');

describe('a fork bound to its target repository', () => {
  it('refuses to land into, or clean, a copy named by an edited request.json; the untouched fork lands', { timeout: 240_000 }, async () => {
    const h = new ForkHarness(tempDir('citadel-target-binding-'));
    await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] } });
    const { run, doc } = await h.startJson(['--runtimes', 'claude,codex', '--workflow', h.workflowFile], env);
    expect(run.code, run.stderr).toBe(0);
    expect(doc.state).toBe('ready');
    const contract = h.readJson(path.join(h.forkDir(doc.fork_id), 'contract.json'));
    expect(contract).toMatchObject({ fork_id: doc.fork_id, target_repository_digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
    // Only the digest: the contract names no path.
    expect(JSON.stringify(contract)).not.toContain(h.repo);
    expect((await h.cli(['fork', 'select', doc.fork_id, 'branch-claude', '--reason', 'passed', '--json'], env)).code).toBe(0);
    const issued = JSON.parse((await h.cli(['fork', 'land', doc.fork_id, '--json'], env)).stdout) as LandDoc;
    expect(issued.checks.filter((c) => !c.ok)).toEqual([]);
    expect(issued.token).not.toBeNull();

    // A copy: the same commits and the same `citadel/<fork>/<branch>` branches, another repository.
    const copy = path.join(h.base, 'copy');
    cpSync(h.repo, copy, { recursive: true });
    const requestFile = path.join(h.forkDir(doc.fork_id), 'request.json');
    const request = readFileSync(requestFile, 'utf8');
    const parsed = JSON.parse(request) as { repo: string };
    writeFileSync(requestFile, JSON.stringify({ ...parsed, repo: path.join(path.dirname(parsed.repo), 'copy') }));
    const before = { repo: refs(h, h.repo), copy: refs(h, copy) };

    const checks = JSON.parse((await h.cli(['fork', 'land', doc.fork_id, '--json'], env)).stdout) as LandDoc;
    expect(checks.token).toBeNull();
    expect(checks.checks.find((c) => c.name === 'target_contained')).toMatchObject({ ok: false, reason: expect.stringContaining('LANDING_TARGET_MISMATCH') });
    for (const args of [
      ['fork', 'land', doc.fork_id, '--confirm', issued.token ?? '', '--json'],
      ['fork', 'clean', doc.fork_id, '--json'],
    ]) {
      const refused = await h.cli(args, env);
      expect(refused.code, args.join(' ')).not.toBe(0);
      expect((JSON.parse(refused.stdout) as { error: { code: string } }).error.code, args.join(' ')).toBe('LANDING_TARGET_MISMATCH');
    }
    expect({ repo: refs(h, h.repo), copy: refs(h, copy) }).toEqual(before);
    expect(h.gitIn(copy, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    expect(parseDoc(await h.cli(['fork', 'status', doc.fork_id, '--json'], env)).state).toBe('selected');

    // The control: the recorded target again, and the same token lands there.
    writeFileSync(requestFile, request);
    const landed = await h.cli(['fork', 'land', doc.fork_id, '--confirm', issued.token ?? '', '--json'], env);
    expect(landed.code, landed.stdout).toBe(0);
    expect(readFileSync(path.join(h.repo, 'src', 'sum.js'), 'utf8')).toBe(FIXED_SUM);
    expect(readFileSync(path.join(copy, 'src', 'sum.js'), 'utf8')).not.toBe(FIXED_SUM);
  });

  it('refuses a contract that binds another fork id, and a record whose base revision is not the contract one', { timeout: 240_000 }, async () => {
    const h = new ForkHarness(tempDir('citadel-contract-fork-id-'));
    await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] } });
    const first = (await h.startJson(['--runtimes', 'claude,codex', '--workflow', h.workflowFile], env)).doc;
    const second = (await h.startJson(['--runtimes', 'claude,codex', '--workflow', h.workflowFile], env)).doc;
    const reasonsOf = async (forkId: string): Promise<string[]> => {
      const run = await h.cli(['fork', 'compare', forkId, '--json'], env);
      const compared = JSON.parse(run.stdout) as { branches?: { reasons: string[] }[] };
      if (!compared.branches) throw new Error(run.stdout);
      return compared.branches.flatMap((b) => b.reasons);
    };
    expect(await reasonsOf(second.fork_id)).toEqual([]);
    // Fork A's contract, record and evidence copied into B's directory, all mutually consistent.
    for (const name of ['contract.json', 'fork.json', 'signer.json', 'request.json']) {
      cpSync(path.join(h.forkDir(first.fork_id), name), path.join(h.forkDir(second.fork_id), name));
    }
    // Even with the record's own id (and its branch names) rewritten to B's, the contract still names A.
    const recordText = readFileSync(path.join(h.forkDir(second.fork_id), 'fork.json'), 'utf8');
    writeFileSync(path.join(h.forkDir(second.fork_id), 'fork.json'), recordText.replaceAll(first.fork_id, second.fork_id));
    expect(await reasonsOf(second.fork_id)).toContain('fork_id_mismatch');

    const recordFile = path.join(h.forkDir(first.fork_id), 'fork.json');
    const original = h.readJson<{ base_revision: string }>(recordFile);
    writeFileSync(recordFile, JSON.stringify({ ...original, base_revision: 'a'.repeat(40) }));
    expect(await reasonsOf(first.fork_id)).toContain('record_mismatch');
  });
});
