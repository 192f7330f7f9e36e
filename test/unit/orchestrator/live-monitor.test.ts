import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { liveDiff, liveGitDir, untrackedLines } from '../../../main/orchestrator/live-diff';
import { startLiveMonitor } from '../../../main/orchestrator/live-monitor';
import { LiveTrailWriter, readLiveTrail } from '../../../main/orchestrator/live-trail';
import { streamableActivities } from '../../../main/orchestrator/live-redaction';
import { codexActivity } from '../../../main/runtimes/codex/parse-events';
import { ForkEventSchema, RuntimeActivitySchema, type ForkEvent } from '../../../shared/fork/events';
import { LiveTrailSchema } from '../../../shared/fork/live-trail';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } }).trim();

/** A repository with one commit (a three-line file, an ignore rule); answers its location and base. */
function repository() {
  const workTree = tempDir('citadel-live-');
  git(workTree, 'init', '-q', '-b', 'main');
  writeFileSync(path.join(workTree, 'a.txt'), 'one\ntwo\nthree\n');
  writeFileSync(path.join(workTree, '.gitignore'), 'ignored.txt\n');
  git(workTree, 'add', '-A');
  git(workTree, 'commit', '-q', '-m', 'base');
  return { location: { gitDir: path.join(workTree, '.git'), workTree }, base: git(workTree, 'rev-parse', 'HEAD') };
}

/** One live diff through its own git dir, removed afterwards. */
async function diffOnce(location: { gitDir: string; workTree: string }, base: string) {
  const live = await liveGitDir(location.gitDir, []);
  try {
    return await liveDiff(location, live, base);
  } finally {
    await live.dispose();
  }
}

const until = async (check: () => boolean, ms = 10_000): Promise<void> => {
  for (const end = Date.now() + ms; !check(); ) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

describe('the live diff of a running worktree (issue 14)', () => {
  it('counts tracked changes and untracked files (not ignored ones, not through a symlink) and never writes the index', async () => {
    const { location, base } = repository();
    const index = path.join(location.gitDir, 'index');
    writeFileSync(path.join(location.workTree, 'a.txt'), 'one\nTWO\nthree\nfour\n');
    mkdirSync(path.join(location.workTree, 'src'));
    writeFileSync(path.join(location.workTree, 'src', 'new.js'), 'export const x = 1;\nexport const y = 2;');
    writeFileSync(path.join(location.workTree, 'blob.bin'), Buffer.from([1, 0, 2, 10, 10]));
    writeFileSync(path.join(location.workTree, 'ignored.txt'), 'not counted\n');
    symlinkSync('/etc/passwd', path.join(location.workTree, 'link'));
    const before = { bytes: readFileSync(index), mtime: statSync(index).mtimeMs };

    // a.txt +2 −1; src/new.js 2 lines (the last without a newline); blob.bin and link files only. Each named, sorted.
    expect(await diffOnce(location, base)).toEqual({ files_changed: 4, insertions: 4, deletions: 1, paths: ['a.txt', 'blob.bin', 'link', 'src/new.js'] });
    expect(readFileSync(index).equals(before.bytes)).toBe(true);
    expect(statSync(index).mtimeMs).toBe(before.mtime);
    expect(existsSync(`${index}.lock`)).toBe(false);
    // The executor's own view is untouched: nothing was staged.
    expect(git(location.workTree, 'diff', '--cached', '--name-only')).toBe('');
  });

  it('streams the diff when it changes and each Codex line as it is appended, hiding secret-like command text, keeps both in the trail, and flushes the log on stop', async () => {
    const { location, base } = repository();
    const attemptDir = tempDir('citadel-live-log-');
    const stdoutFile = path.join(attemptDir, 'stdout.log');
    const trailFile = path.join(attemptDir, 'live-trail.json');
    const events: ForkEvent[] = [];
    const monitor = startLiveMonitor({
      forkId: 'fork-1',
      branchId: 'branch-codex',
      repository: location,
      base,
      includes: [],
      stdoutFile,
      trailFile,
      readLogFrom: 'start',
      activity: codexActivity,
      events: (event) => events.push(ForkEventSchema.parse(event)),
    });
    const diffs = () => events.filter((e) => e.type === 'live_diff');
    await until(() => diffs().length === 1);
    expect(diffs()[0]).toMatchObject({ files_changed: 0, insertions: 0, deletions: 0, paths: [] });
    // A view opened now, in any process, gets the latest diff without waiting for the next change (forkTimeline, outside-changes).
    await until(() => existsSync(trailFile));
    expect((await readLiveTrail(trailFile))?.diff).toMatchObject({ files_changed: 0, insertions: 0, deletions: 0 });
    expect(statSync(trailFile).mode & 0o777).toBe(0o600);

    const line = (event: Record<string, unknown>) => appendFileSync(stdoutFile, `${JSON.stringify(event)}\n`);
    line({ type: 'turn.started' });
    line({ type: 'item.started', item: { id: 'item_1', type: 'command_execution', command: '/bin/bash -lc "cat /etc/hosts"', status: 'in_progress' } });
    line({ type: 'item.started', item: { id: 'item_2', type: 'command_execution', command: 'curl -H "Authorization: Bearer sk-proj-Zq8vN2mR7tL4kX9pW3sY6bH1cJ5dF0gA"', status: 'in_progress' } });
    // Half a line waits for its newline.
    appendFileSync(stdoutFile, '{"type":"turn.comp');
    await until(() => events.some((e) => e.type === 'runtime_activity' && e.kind === 'command_started' && e.summary.includes('hidden')));
    const shown = events.filter((e) => e.type === 'runtime_activity').map((e) => e.type === 'runtime_activity' && e.summary);
    expect(shown).toEqual(['turn started', 'running cat /etc/hosts', 'command started (its text is hidden: it looks like it holds a secret)']);
    expect(JSON.stringify(events)).not.toContain('sk-proj');
    // A view opened now gets what was streamed so far, as streamed, with when (forkTimeline).
    const streamed = () => events.flatMap((e) => (e.type === 'runtime_activity' ? [{ seq: e.seq, at: e.at, kind: e.kind, summary: e.summary }] : []));
    await until(() => readFileSync(trailFile, 'utf8').includes('hidden'));
    const sofar = (await readLiveTrail(trailFile))?.activities ?? [];
    // The same entries, numbered as streamed.
    expect(sofar).toEqual(streamed());
    expect(sofar.map(({ seq }) => seq)).toEqual([1, 2, 3]);
    for (const { at } of sofar) expect(Math.abs(Date.parse(at) - Date.now())).toBeLessThan(10_000);
    expect(readFileSync(trailFile, 'utf8')).not.toContain('sk-proj');

    writeFileSync(path.join(location.workTree, 'a.txt'), 'one\n');
    await until(() => diffs().length === 2);
    expect(diffs()[1]).toMatchObject({ files_changed: 1, insertions: 0, deletions: 2, paths: ['a.txt'] });

    appendFileSync(stdoutFile, 'leted","usage":{"input_tokens":5,"output_tokens":7}}\n');
    await monitor.stop();
    expect(events.at(-1)).toMatchObject({ type: 'runtime_activity', fork_id: 'fork-1', branch_id: 'branch-codex', kind: 'turn_completed', summary: 'turn completed · 5 input, 7 output tokens' });
    // The final turn, read as the runtime exits, is in the trail once stop resolves: a finished branch's timeline shows it.
    const kept = await readLiveTrail(trailFile);
    expect(kept?.activities).toEqual(streamed());
    expect(kept?.diff).toMatchObject({ files_changed: 1, insertions: 0, deletions: 2, paths: ['a.txt'] });
    // Nothing is streamed once stopped, however the worktree goes on changing.
    const count = events.length;
    writeFileSync(path.join(location.workTree, 'b.txt'), 'later\n');
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(events).toHaveLength(count);
  });

  it('names the first 20 changed files, sorted, tracked and untracked alike, whatever their names hold; the count stays whole (issue 29)', async () => {
    const { location, base } = repository();
    writeFileSync(path.join(location.workTree, 'a.txt'), 'changed\n');
    writeFileSync(path.join(location.workTree, 'tab\there "quoted".txt'), 'x\n');
    for (let i = 10; i < 40; i++) writeFileSync(path.join(location.workTree, `n${i}.txt`), 'x\n');
    const diff = await diffOnce(location, base);
    expect(diff.files_changed).toBe(32);
    expect(diff.paths).toEqual(['a.txt', ...Array.from({ length: 19 }, (_, i) => `n${i + 10}.txt`)]);
    // As the event carries them (bounded by its schema), and a name git would quote is named as it is.
    expect(ForkEventSchema.parse({ type: 'live_diff', fork_id: 'f', branch_id: 'b', ...diff }).type).toBe('live_diff');
    writeFileSync(path.join(location.workTree, 'a.txt'), 'one\ntwo\nthree\n');
    for (let i = 10; i < 40; i++) rmSync(path.join(location.workTree, `n${i}.txt`));
    expect((await diffOnce(location, base)).paths).toEqual(['tab\\there "quoted".txt']);
  });

  it('names files whose names are not UTF-8, or hold controls, each apart and printable, as git quotes them (issue 29)', async () => {
    const { location, base } = repository();
    const name = (...parts: (string | number[])[]): Buffer => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));
    // Two names a UTF-8 decoder makes one (`x\uFFFD`), a newline with a terminal escape, a right-to-left override, a backslash.
    const names = [name('x', [0xff]), name('x', [0xfe]), name('evil\nline\x1b[31m'), name('a\u202Etxt.exe'), name('back\\slash'), name('caf\u00e9')];
    for (const n of names) writeFileSync(Buffer.concat([Buffer.from(`${location.workTree}/`), n]), 'one\ntwo\n');
    const listed = ['a\\xe2\\x80\\xaetxt.exe', 'back\\\\slash', 'caf\u00e9', 'evil\\nline\\x1b[31m', 'x\\xfe', 'x\\xff'];
    // Untracked, each file's lines are read by its own bytes; tracked, git's counts come before the name's bytes.
    expect(await diffOnce(location, base)).toEqual({ files_changed: 6, insertions: 12, deletions: 0, paths: listed });
    git(location.workTree, 'add', '-A');
    const diff = await diffOnce(location, base);
    expect(diff).toEqual({ files_changed: 6, insertions: 12, deletions: 0, paths: listed });
    expect(diff.paths.join('')).not.toMatch(/[\p{Cc}\p{Cf}]/u);
    expect(ForkEventSchema.parse({ type: 'live_diff', fork_id: 'f', branch_id: 'b', ...diff }).type).toBe('live_diff');
  });

  it('the live diff event and the live trail refuse a path named twice, or one holding a control character (issue 29)', () => {
    const event = (paths: string[]) => ForkEventSchema.safeParse({ type: 'live_diff', fork_id: 'f', branch_id: 'b', files_changed: 2, insertions: 0, deletions: 0, paths }).success;
    expect(event(['x\\xfe', 'x\\xff'])).toBe(true);
    expect(event(['x\uFFFD', 'x\uFFFD'])).toBe(false);
    expect(event(['evil\nline'])).toBe(false);
    expect(event(['a\u202Etxt'])).toBe(false);
    const trail = (paths: string[]) => LiveTrailSchema.safeParse({ schema_version: 1, diff: { at: new Date().toISOString(), files_changed: 2, insertions: 0, deletions: 0, paths }, activities: [] }).success;
    expect(trail(['a.txt', 'b.txt'])).toBe(true);
    expect(trail(['a.txt', 'a.txt'])).toBe(false);
  });

  it('reads at most 8 MB of untracked files per tick, counting files past it without their lines, and stops counting when aborted', async () => {
    const { location, base } = repository();
    // Six files of 2 MB, a million lines each: the lines of the first four fit in a tick.
    const lines = 1024 * 1024;
    for (const name of ['u1', 'u2', 'u3', 'u4', 'u5', 'u6']) writeFileSync(path.join(location.workTree, `${name}.txt`), 'a\n'.repeat(lines));
    expect(await diffOnce(location, base)).toEqual({ files_changed: 6, insertions: 4 * lines, deletions: 0, paths: ['u1.txt', 'u2.txt', 'u3.txt', 'u4.txt', 'u5.txt', 'u6.txt'] });
    const aborted = new AbortController();
    aborted.abort(new Error('stopped'));
    await expect(untrackedLines(location.workTree, [Buffer.from('u1.txt')], aborted.signal)).rejects.toThrow('stopped');
  });

  it('reads no configuration of the branch repository: a clean filter planted there never runs in the live diff', async () => {
    const { location, base } = repository();
    const marker = path.join(tempDir('citadel-live-planted-'), 'ran');
    git(location.workTree, 'config', 'filter.evil.clean', `touch ${marker}; cat`);
    writeFileSync(path.join(location.workTree, '.gitattributes'), '* filter=evil\n');
    writeFileSync(path.join(location.workTree, 'a.txt'), 'changed\n');
    expect(await diffOnce(location, base)).toEqual({ files_changed: 2, insertions: 2, deletions: 3, paths: ['.gitattributes', 'a.txt'] });
    expect(existsSync(marker)).toBe(false);
    // The control: git in the branch's own git dir runs the planted filter.
    git(location.workTree, 'diff', '--numstat', base);
    expect(existsSync(marker)).toBe(true);
  });

  it('stop ends a diff under way and removes its git dir: nothing is streamed after, nothing is left behind', async () => {
    const { location, base } = repository();
    // Enough untracked text that the first tick is still counting when stop comes.
    for (const name of ['u1', 'u2', 'u3', 'u4']) writeFileSync(path.join(location.workTree, `${name}.txt`), 'a\n'.repeat(1024 * 1024));
    const scratch = tempDir('citadel-live-tmp-');
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = scratch;
    try {
      const events: ForkEvent[] = [];
      const monitor = startLiveMonitor({ forkId: 'fork-4', branchId: 'b', repository: location, base, includes: [], stdoutFile: path.join(location.gitDir, 'none.log'), trailFile: path.join(location.gitDir, 'trail.json'), readLogFrom: 'start', activity: undefined, events: (e) => events.push(e) });
      await until(() => readdirSync(scratch).length > 0);
      await monitor.stop();
      expect(events).toEqual([]);
      expect(readdirSync(scratch)).toEqual([]);
      expect(existsSync(path.join(location.gitDir, 'trail.json'))).toBe(false);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
  });

  it('attaching to a run under way streams only the lines added after it, not the log it already held', async () => {
    const { location, base } = repository();
    const attemptDir = tempDir('citadel-live-log-');
    const stdoutFile = path.join(attemptDir, 'stdout.log');
    const trailFile = path.join(attemptDir, 'live-trail.json');
    // What the drive before the restart streamed and kept: the attached one goes on from it.
    writeFileSync(trailFile, `${JSON.stringify({ schema_version: 1, diff: null, activities: [{ seq: 7, at: '2026-12-01T10:00:00.000Z', kind: 'turn_started', summary: 'turn started' }] })}\n`);
    const line = (event: Record<string, unknown>) => `${JSON.stringify(event)}\n`;
    // The old log ends halfway through a line: its rest is not a line of its own.
    writeFileSync(stdoutFile, `${line({ type: 'thread.started', thread_id: 't' })}${line({ type: 'turn.started' })}{"type":"turn.com`);
    const events: ForkEvent[] = [];
    const monitor = startLiveMonitor({ forkId: 'fork-3', branchId: 'b', repository: location, base, includes: [], stdoutFile, trailFile, readLogFrom: 'end', activity: codexActivity, events: (e) => events.push(e) });
    await until(() => events.some((e) => e.type === 'live_diff'));
    appendFileSync(stdoutFile, `pleted"}\n${line({ type: 'turn.failed', error: { message: 'x' } })}`);
    await monitor.stop();
    expect(events.filter((e) => e.type === 'runtime_activity').map((e) => e.type === 'runtime_activity' && e.summary)).toEqual(['turn failed']);
    expect((await readLiveTrail(trailFile))?.activities.map(({ seq, summary }) => [seq, summary])).toEqual([
      [7, 'turn started'],
      [8, 'turn failed'],
    ]);
  });
});

describe('the live trail (issue 14)', () => {
  it('keeps the newest 200 activities, numbered on across the ones dropped, and writes changes made during a write together', async () => {
    const file = path.join(tempDir('citadel-trail-'), 'live-trail.json');
    const trail = new LiveTrailWriter(file);
    const at = '2026-12-01T10:00:00.000Z';
    const changes: Promise<unknown>[] = [];
    for (let i = 1; i <= 250; i++) changes.push(trail.activities([{ at, activity: { kind: 'item_started', summary: `item ${i}` } }]));
    changes.push(trail.diff(at, { files_changed: 2, insertions: 3, deletions: 1, paths: ['a.txt', 'b c.txt'] }));
    const kept = await Promise.all(changes);
    // Each is numbered as it is made, before any write.
    expect(kept.slice(0, 2)).toEqual([[{ seq: 1, at, kind: 'item_started', summary: 'item 1' }], [{ seq: 2, at, kind: 'item_started', summary: 'item 2' }]]);
    await trail.flush();
    const written = await readLiveTrail(file);
    expect(written?.activities).toHaveLength(200);
    expect(written?.activities[0]).toEqual({ seq: 51, at, kind: 'item_started', summary: 'item 51' });
    expect(written?.activities.at(-1)?.seq).toBe(250);
    expect(written?.diff).toEqual({ at, files_changed: 2, insertions: 3, deletions: 1, paths: ['a.txt', 'b c.txt'] });
  });

  it('reads a damaged or missing trail as none', async () => {
    const dir = tempDir('citadel-trail-');
    writeFileSync(path.join(dir, 'bad.json'), '{"schema_version":1,"diff":null,"activities":[{"seq":0}]}\n');
    expect(await readLiveTrail(path.join(dir, 'bad.json'))).toBeNull();
    expect(await readLiveTrail(path.join(dir, 'none.json'))).toBeNull();
  });
});

describe('what of a runtime activity is streamed (issue 14)', () => {
  const command = (text: string) => codexActivity(JSON.stringify({ type: 'item.started', item: { id: 'item_1', type: 'command_execution', command: text, status: 'in_progress' } }));

  it('hides a command holding a secret, scanned whole before it is cut, with the scanner publishing uses and the command-line rules', async () => {
    const secrets = [
      'aws s3 ls --access-key AKIAIOSFODNN7EXAMPLE',
      'PGPASSWORD=correcthorsebattery psql -h db',
      'curl -u admin:Passw0rd123 https://x',
      'mysql -uroot -pS3cretPass app',
      'tool --password=hunter2',
      // A GitHub token starting at character 160: a cut before the scan (at 179) left too little of it for its rule.
      `echo ${'x'.repeat(154)} ghp_Zq8vN2mR7tL4kX9pW3sY6bH1cJ5dF0gAbCdE`,
    ];
    expect(secrets[5]?.indexOf('ghp_')).toBe(160);
    const shown = await streamableActivities(secrets.map((text) => command(text)).filter((a) => a !== null));
    expect(shown).toEqual(secrets.map(() => ({ kind: 'command_started', summary: 'command started (its text is hidden: it looks like it holds a secret)' })));
  });

  it('shows other commands, local paths included, cut to fit the event', async () => {
    const long = `echo ${'word '.repeat(200)}`;
    const shown = await streamableActivities([command('cat /etc/hosts'), command('git push -u origin main'), command(long)].filter((a) => a !== null));
    expect(shown.slice(0, 2).map((a) => a.summary)).toEqual(['running cat /etc/hosts', 'running git push -u origin main']);
    expect(shown[2]?.summary).toMatch(/^running echo word word .*…$/);
    expect(RuntimeActivitySchema.parse(shown[2]).summary.length).toBeLessThanOrEqual(200);
  });
});
