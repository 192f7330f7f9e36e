import { mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCodexOutput } from '../../../main/runtimes/codex/parse-output';
import { codexHomeFrom, lookupRolloutModel } from '../../../main/runtimes/codex/rollout-lookup';
import { useTempDirs } from '../../support/temp-dir';
import { FIXTURES_DIR, recordedRun } from './recorded-run';

const THREAD = '01a22907-603e-7363-9eb9-ea16456b3e67';
const RECORDED_CWD = '/tmp/lab/repo-codex-a_text-PpYN';
const RECORDED_NAME = `rollout-2026-11-29T20-37-58-${THREAD}.jsonl`;
const RECORDED_ROLLOUT = readFileSync(path.join(FIXTURES_DIR, 'codex/a_text/rollout.jsonl'), 'utf8');

interface Layout {
  codexHome: string;
  worktree: string;
  /** Writes a rollout under sessions/<day>/<name>; the recorded cwd is replaced by `cwd` (default: the worktree). */
  place(options?: { day?: string; name?: string; text?: string; cwd?: string }): string;
}

describe('Codex rollout lookup', () => {
  const tempDir = useTempDirs();

  function layout(): Layout {
    const root = realpathSync(tempDir());
    const codexHome = path.join(root, 'codex-home');
    const worktree = path.join(root, 'worktree');
    mkdirSync(worktree);
    return {
      codexHome,
      worktree,
      place: ({ day = '2026/11/29', name = RECORDED_NAME, text = RECORDED_ROLLOUT, cwd = worktree } = {}) => {
        const dir = path.join(codexHome, 'sessions', ...day.split('/'));
        mkdirSync(dir, { recursive: true });
        const file = path.join(dir, name);
        writeFileSync(file, text.replaceAll(RECORDED_CWD, cwd));
        return file;
      },
    };
  }

  const lookup = (l: Layout, threadId = THREAD, extra: { around?: Date[] } = {}) =>
    lookupRolloutModel({ codexHome: l.codexHome, threadId, worktree: l.worktree, ...extra });

  it('finds the recorded rollout by thread id and reads turn_context.model', async () => {
    const l = layout();
    l.place();
    expect(await lookup(l)).toEqual({ model: 'qwen3-coder:30b', warning: null });
  });

  it('looks in the neighbouring day folders a time zone can map the thread start to', async () => {
    const l = layout();
    l.place({ day: '2026/11/30' });
    expect(await lookup(l)).toEqual({ model: 'qwen3-coder:30b', warning: null });
  });

  it('does not look outside the days of the run', async () => {
    const l = layout();
    l.place({ day: '2026/11/27' });
    expect(await lookup(l)).toEqual({ model: null, warning: 'rollout_not_found' });
  });

  it('needs instants of the run to find a thread id that carries no time (not UUIDv7)', async () => {
    const l = layout();
    const v4 = '5a59e390-8ac7-45d4-836c-be1fd84b1fe5';
    l.place({ name: `rollout-2026-11-29T20-37-58-${v4}.jsonl`, text: RECORDED_ROLLOUT.replaceAll(THREAD, v4) });
    expect(await lookup(l, v4)).toEqual({ model: null, warning: 'rollout_not_found' });
    expect(await lookup(l, v4, { around: [new Date('2026-11-29T21:00:00Z')] })).toEqual({ model: 'qwen3-coder:30b', warning: null });
  });

  it('refuses a rollout whose turn_context cwd is not the worktree', async () => {
    const l = layout();
    l.place({ cwd: path.join(l.worktree, '..', 'other-worktree') });
    expect(await lookup(l)).toEqual({ model: null, warning: 'rollout_cwd_mismatch' });
  });

  it('refuses a symlinked rollout file', async () => {
    const l = layout();
    const real = l.place({ day: '2026/11/28', name: 'elsewhere.jsonl' });
    const dir = path.join(l.codexHome, 'sessions/2026/11/29');
    mkdirSync(dir, { recursive: true });
    symlinkSync(real, path.join(dir, RECORDED_NAME));
    expect(await lookup(l)).toEqual({ model: null, warning: 'rollout_unreadable' });
  });

  it.each(['sessions', 'sessions/2026', 'sessions/2026/11', 'sessions/2026/11/29'])('refuses a symlinked %s folder', async (link) => {
    const l = layout();
    const elsewhere = path.join(path.dirname(l.codexHome), 'elsewhere');
    const target = path.join(elsewhere, path.relative(link, 'sessions/2026/11/29'), RECORDED_NAME);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, RECORDED_ROLLOUT.replaceAll(RECORDED_CWD, l.worktree));
    mkdirSync(path.dirname(path.join(l.codexHome, link)), { recursive: true });
    symlinkSync(elsewhere, path.join(l.codexHome, link));
    expect(await lookup(l)).toEqual({ model: null, warning: 'rollout_unreadable' });
  });

  it('refuses to choose between two rollouts of one thread', async () => {
    const l = layout();
    l.place();
    l.place({ day: '2026/11/30', name: `rollout-2026-11-30T01-00-00-${THREAD}.jsonl` });
    expect(await lookup(l)).toEqual({ model: null, warning: 'observed_model_ambiguous' });
  });

  it('accepts only a UUID as thread id, so it cannot inject path pieces', async () => {
    const l = layout();
    const around = [new Date('2026-11-29T21:00:00Z')];
    const notUuid = 'thread-7';
    l.place({ name: `rollout-2026-11-29T20-37-58-${notUuid}.jsonl`, text: RECORDED_ROLLOUT.replaceAll(THREAD, notUuid) });
    expect(await lookup(l, notUuid, { around })).toEqual({ model: null, warning: 'rollout_not_found' });
    for (const bad of ['../../../etc/passwd', `${THREAD}/../x`, '']) {
      expect(await lookup(l, bad, { around })).toEqual({ model: null, warning: 'rollout_not_found' });
    }
  });

  it('reports a missing CODEX_HOME, sessions folder or file as not found', async () => {
    const l = layout();
    expect(await lookup(l)).toEqual({ model: null, warning: 'rollout_not_found' });
    mkdirSync(path.join(l.codexHome, 'sessions/2026/11/29'), { recursive: true });
    expect(await lookup(l)).toEqual({ model: null, warning: 'rollout_not_found' });
  });

  it('stops at the size and directory-entry bounds', async () => {
    const l = layout();
    l.place();
    const request = { codexHome: l.codexHome, threadId: THREAD, worktree: l.worktree };
    expect(await lookupRolloutModel(request, { maxEntriesPerFolder: 10, maxFileBytes: 1000 })).toEqual({ model: null, warning: 'rollout_unreadable' });
    l.place({ name: 'rollout-a.jsonl' });
    l.place({ name: 'rollout-b.jsonl' });
    expect(await lookupRolloutModel(request, { maxEntriesPerFolder: 2, maxFileBytes: 1 << 20 })).toEqual({ model: null, warning: 'rollout_unreadable' });
    expect(await lookupRolloutModel(request, { maxEntriesPerFolder: 3, maxFileBytes: 1 << 20 })).toEqual({ model: 'qwen3-coder:30b', warning: null });
  });

  it('reads only turn_context.model, and only a public-safe one', async () => {
    const withModel = (model: unknown): string =>
      RECORDED_ROLLOUT.split('\n')
        .map((line) => {
          if (!line.includes('"type":"turn_context"')) return line;
          const record = JSON.parse(line) as { payload: Record<string, unknown> };
          record.payload.model = model;
          return JSON.stringify(record);
        })
        .join('\n');
    // The model appears in world_state and thread_settings too; those never count.
    for (const [model, warning] of [
      ['qwen3 coder', 'observed_model_not_public_safe'],
      [undefined, 'observed_model_missing'],
      [42, 'observed_model_missing'],
    ] as const) {
      const l = layout();
      l.place({ text: withModel(model) });
      expect(await lookup(l)).toEqual({ model: null, warning });
    }
  });

  it('requires every turn_context to agree', async () => {
    const l = layout();
    const context = RECORDED_ROLLOUT.split('\n').find((line) => line.includes('"type":"turn_context"')) ?? '';
    const second = context.replace('"model":"qwen3-coder:30b"', '"model":"gpt-5.1-codex"');
    expect(second).not.toBe(context);
    l.place({ text: `${RECORDED_ROLLOUT}${second}\n` });
    expect(await lookup(l)).toEqual({ model: null, warning: 'observed_model_ambiguous' });
  });

  it('refuses a file of another thread or with a corrupt line, but accepts a cut-off last line', async () => {
    const other = layout();
    other.place({ text: RECORDED_ROLLOUT.replace(`"id":"${THREAD}"`, '"id":"01a22907-0000-7000-8000-000000000000"') });
    expect(await lookup(other)).toEqual({ model: null, warning: 'rollout_unreadable' });

    const corrupt = layout();
    corrupt.place({ text: `not json\n${RECORDED_ROLLOUT}` });
    expect(await lookup(corrupt)).toEqual({ model: null, warning: 'rollout_unreadable' });

    const cut = layout();
    cut.place({ text: `${RECORDED_ROLLOUT}{"timestamp":"2026-11-29T20:37:59.060Z","ordinal":14,"ty` });
    expect(await lookup(cut)).toEqual({ model: 'qwen3-coder:30b', warning: null });
  });

  it('takes CODEX_HOME, else $HOME/.codex, only as an absolute path', () => {
    expect(codexHomeFrom({ CODEX_HOME: '/c', HOME: '/h' })).toBe('/c');
    expect(codexHomeFrom({ HOME: '/h' })).toBe(path.join('/h', '.codex'));
    expect(codexHomeFrom({ CODEX_HOME: '', HOME: '/h' })).toBe(path.join('/h', '.codex'));
    expect(codexHomeFrom({ CODEX_HOME: 'relative' })).toBeNull();
    expect(codexHomeFrom({})).toBeNull();
  });

  it('gives the Codex adapter the observed model of the recorded run', async () => {
    const l = layout();
    l.place();
    const parsed = await parseCodexOutput(recordedRun('codex', 'a_text', { worktree: l.worktree, env: { CODEX_HOME: l.codexHome } }));
    expect(parsed).toMatchObject({
      succeeded: true,
      telemetry: { observed_model: 'qwen3-coder:30b', observed_model_source: 'codex_rollout_turn_context', input_tokens: 321, cost_usd: null },
      warnings: ['stderr_output', 'nonfatal_runtime_errors'],
    });
    const viaHome = await parseCodexOutput(
      recordedRun('codex', 'a_text', { worktree: path.join(l.worktree, '..', 'wrong'), env: { HOME: path.dirname(l.codexHome) } }),
    );
    expect(viaHome.telemetry.observed_model).toBeNull();
    expect(viaHome.warnings).toContain('rollout_not_found');
  });
});
