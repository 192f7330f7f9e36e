/**
 * Issue 27, part 5, through the real CLI: a repository's committed `.worktreeinclude` cannot hand
 * the operator's ignored files to the agents unasked. The first fork is refused, listing them, with
 * nothing created; `--include-confirmed` starts it and keeps the confirmation for that repository
 * and list; the next fork starts unasked, a rotated secret asks nothing, a file added asks again,
 * and a list that names nothing asks nothing.
 */
import { existsSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { targetRepositoryDigest } from '../../../main/landing/target-identity';
import { includeListDigest } from '../../../shared/fork/include-confirmation';
import { ForkHarness } from '../../support/fork-harness';
import { serviceOver } from '../../support/service-context';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

const ENV_FILE = 'API_TOKEN=citadel-include-confirm-0b7e\n';
const START = ['--runtimes', 'claude,codex', '--containment', 'runtime-only'];

/** The harness target with an ignored `.env` named by a committed `.worktreeinclude` (as a cloned repository would have it). */
function harness(list: string): ForkHarness {
  const h = new ForkHarness(tempDir('citadel-include-confirm-'));
  writeFileSync(path.join(h.repo, '.gitignore'), '.env\n*.pem\n');
  writeFileSync(path.join(h.repo, '.worktreeinclude'), list);
  h.gitIn(h.repo, 'add', '-A');
  h.gitIn(h.repo, 'commit', '-q', '-m', 'worktreeinclude');
  writeFileSync(path.join(h.repo, '.env'), ENV_FILE);
  return h;
}

const confirmationsFile = (h: ForkHarness): string => path.join(h.root, 'settings', 'include-confirmations.json');

/** Nothing of a fork exists: no fork folder, no worktree or Citadel repository, no branch, no git worktree, no confirmation. */
function expectNothingCreated(h: ForkHarness): void {
  const forks = path.join(h.root, 'forks');
  expect(existsSync(forks) ? readdirSync(forks) : []).toEqual([]);
  expect(existsSync(path.join(h.root, 'worktrees'))).toBe(false);
  expect(existsSync(path.join(h.root, 'repositories'))).toBe(false);
  expect(h.gitIn(h.repo, 'for-each-ref', '--format=%(refname)')).toBe('refs/heads/main');
  expect(h.gitIn(h.repo, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
  expect(existsSync(confirmationsFile(h))).toBe(false);
}

interface Refusal {
  code: string;
  message: string;
  details: { files: { path: string; size_bytes: number }[]; include_digest: string };
}

describe('the operator confirms what .worktreeinclude copies', () => {
  it('refuses the first fork with the list and creates nothing; confirmed, it starts and is kept; a second starts unasked; a new file asks again', { timeout: 180_000 }, async () => {
    const h = harness('# the operator never wrote this\n.env\n*.pem\n');
    await h.simulate({});

    const refused = await h.startJson(START);
    expect(refused.run.code).toBe(1);
    const error = refused.doc.error as Refusal | undefined;
    expect(error?.code).toBe('WORKTREE_INCLUDE_UNCONFIRMED');
    expect(error?.details).toEqual({ repository: realpathSync(h.repo), files: [{ path: '.env', size_bytes: ENV_FILE.length }], include_digest: includeListDigest(['.env']) });
    expect(error?.message).toContain(`.env (${ENV_FILE.length} bytes)`);
    expect(error?.message).toContain('--include-confirmed');
    expectNothingCreated(h);
    // Without --json the operator reads the same list on stderr.
    const text = await h.cli(['fork', 'start', 'Fix the sum function', '--repo', h.repo, ...START]);
    expect(text.code).toBe(1);
    expect(text.stderr).toContain(`citadel: WORKTREE_INCLUDE_UNCONFIRMED: .worktreeinclude in ${realpathSync(h.repo)} copies this ignored file of yours into every agent's worktree: .env (${ENV_FILE.length} bytes).`);
    expectNothingCreated(h);

    const confirmed = await h.startJson([...START, '--include-confirmed']);
    expect(confirmed.doc.error, confirmed.run.stdout + confirmed.run.stderr).toBeUndefined();
    expect(confirmed.doc).toMatchObject({ worktree_include: [{ path: '.env', size_bytes: ENV_FILE.length }] });
    expect(h.readJson(confirmationsFile(h))).toEqual({
      schema_version: 1,
      confirmations: [{ repository: await targetRepositoryDigest(realpathSync(h.repo)), repository_root: realpathSync(h.repo), include_digest: includeListDigest(['.env']), confirmed_at: expect.any(String) }],
    });

    // New content in a file already confirmed (a rotated secret) asks nothing: the files are the same.
    writeFileSync(path.join(h.repo, '.env'), `${ENV_FILE}SECOND=1\n`);
    const second = await h.cli(['fork', 'start', 'Fix the sum function', '--repo', h.repo, ...START]);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(second.stderr).toContain(`note: copied into each worktree from .worktreeinclude: .env (${ENV_FILE.length + 'SECOND=1\n'.length} bytes)`);
    const { service } = await serviceOver(h);
    const request = { objective: 'Fix the sum function', repo: h.repo, executors: { kind: 'runtimes', list: 'claude,codex' }, workflow_file: null, budget_seconds: null };
    expect(await service.handle('previewFork', request)).toMatchObject({ ok: true, value: { repository: { worktree_include: { digest: includeListDigest(['.env']), confirmed: true } } } });

    // A file the list now also picks up is asked about again, the whole list shown.
    writeFileSync(path.join(h.repo, 'deploy.pem'), 'PRIVATE KEY\n');
    const forksBefore = readdirSync(path.join(h.root, 'forks'));
    const changed = await h.startJson(START);
    const again = changed.doc.error as Refusal | undefined;
    expect(again?.code).toBe('WORKTREE_INCLUDE_UNCONFIRMED');
    expect(again?.details.files.map((f) => f.path)).toEqual(['.env', 'deploy.pem']);
    expect(again?.details.include_digest).toBe(includeListDigest(['.env', 'deploy.pem']));
    expect(readdirSync(path.join(h.root, 'forks'))).toEqual(forksBefore);
    expect(await service.handle('previewFork', request)).toMatchObject({ ok: true, value: { repository: { worktree_include: { confirmed: false } } } });

    // The refusal names the digest that confirms exactly the list it showed; another list's digest confirms nothing.
    expect(changed.run.stdout + changed.run.stderr).toContain(`--include-confirmed=${includeListDigest(['.env', 'deploy.pem'])}`);
    const stale = await h.startJson([...START, `--include-confirmed=${includeListDigest(['.env'])}`]);
    expect((stale.doc.error as Refusal | undefined)?.code).toBe('WORKTREE_INCLUDE_UNCONFIRMED');
    expect(readdirSync(path.join(h.root, 'forks'))).toEqual(forksBefore);
    expect((await h.startJson([...START, '--include-confirmed=not-a-digest'])).doc.error).toMatchObject({ code: 'USAGE_ERROR' });
    const exact = await h.startJson([...START, `--include-confirmed=${includeListDigest(['.env', 'deploy.pem'])}`]);
    expect(exact.run.code, exact.run.stderr).toBe(0);
  });

  it('Mission Control: the tick sends the digest of the list the preview showed; a digest of another list is refused', { timeout: 120_000 }, async () => {
    const h = harness('.env\n');
    await h.simulate({});
    const { service } = await serviceOver(h);
    const request = { objective: 'Fix the sum function', repo: h.repo, executors: { kind: 'runtimes', list: 'claude,codex' }, workflow_file: null, budget_seconds: null, containment: 'runtime-only' } as const;
    const preview = await service.handle('previewFork', request);
    if (!preview.ok) throw new Error(preview.error.message);
    const shown = preview.value.repository?.worktree_include;
    expect(shown).toEqual({ files: [{ path: '.env', size_bytes: ENV_FILE.length }], digest: includeListDigest(['.env']), confirmed: false });

    for (const include_confirmed of [undefined, null, includeListDigest(['.env', 'deploy.pem'])]) {
      const refused = await service.handle('startFork', { ...request, include_confirmed });
      expect(refused).toMatchObject({ ok: false, error: { code: 'WORKTREE_INCLUDE_UNCONFIRMED', details: { include_digest: shown?.digest } } });
    }
    expectNothingCreated(h);

    const started = await service.handle('startFork', { ...request, include_confirmed: shown?.digest ?? null });
    expect(started.ok, JSON.stringify(started)).toBe(true);
    await service.drained();
    expect(await service.handle('previewFork', request)).toMatchObject({ ok: true, value: { repository: { worktree_include: { confirmed: true } } } });
  });

  it('a .worktreeinclude that names no file asks nothing and records nothing', { timeout: 120_000 }, async () => {
    const h = harness('# nothing here is copied\nmissing.env\n');
    await h.simulate({});
    const { run, doc } = await h.startJson(START);
    expect(doc.error, run.stdout + run.stderr).toBeUndefined();
    expect(doc).toMatchObject({ worktree_include: [] });
    expect(existsSync(confirmationsFile(h))).toBe(false);
  });
});
