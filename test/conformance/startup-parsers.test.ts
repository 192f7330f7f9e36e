import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GENERATED_PATH, startupParsersSource } from '../../build/startup-parsers';
import { listForksResponseParser } from '../../renderer/src/lib/generated/startup-parsers';
import { STARTUP_REPLIES } from '../../renderer/src/lib/startup-replies';
import { IPC_CHANNELS, replySchema } from '../../shared/ipc/contract';
import { ListForksResponseSchema } from '../../shared/ipc/fork-list-channel';
import { forkSummary } from '../component/support/fixtures';

const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..');

describe('the first page’s compiled list parser', () => {
  it('is exactly what zod compiles from the schema now (run `npm run generate:parsers` after a schema change)', () => {
    expect(readFileSync(path.join(REPO_ROOT, GENERATED_PATH), 'utf8')).toBe(startupParsersSource());
  });

  it('is built from the contract’s own listForks response schema', () => {
    expect(IPC_CHANNELS.listForks.response).toBe(ListForksResponseSchema);
  });

  const valid = { ok: true, value: { forks: [forkSummary(), forkSummary({ fork_id: 'fork-01m8t0ydr33wvjv8wtngemw7pm', title: null, repo_name: null }), { fork_id: 'fork-broken', state: 'unknown', problem: 'FORK_RECORD_INVALID' }] } };
  const first = valid.value.forks[0] as Record<string, unknown>;
  const branch = (first.branches as Record<string, unknown>[])[0] as Record<string, unknown>;
  const withFork = (fork: Record<string, unknown>) => ({ ok: true, value: { forks: [fork] } });
  const cases: [string, unknown][] = [
    ['a valid list', valid],
    ['an empty list', { ok: true, value: { forks: [] } }],
    ['a typed error', { ok: false, error: { code: 'FORK_NOT_FOUND', message: 'no such fork' } }],
    ['an unknown state', withFork({ ...first, state: 'winning' })],
    ['a fork id outside the alphabet', withFork({ ...first, fork_id: 'fork-ILOU' })],
    ['an extra key (strict)', withFork({ ...first, trusted: true })],
    ['a missing key', withFork({ ...first, title_standing: undefined })],
    ['a fractional revision', withFork({ ...first, revision: 1.5 })],
    ['a time that is not ISO', withFork({ ...first, created_at: 'yesterday' })],
    ['a digest the list does not carry (strict)', withFork({ ...first, contract_digest: `sha256:${'a'.repeat(64)}` })],
    ['a fork id in capitals', withFork({ ...first, fork_id: 'fork-01M8T0YDR33WVJV8WTNGEMW7PM' })],
    ['a branch with an unknown failure code', withFork({ ...first, branches: [{ ...branch, failure_code: 'OOPS' }] })],
    ['a branch with an extra key', withFork({ ...first, branches: [{ ...branch, path: '/etc' }] })],
    ['a problem entry with a state other than unknown', withFork({ fork_id: 'fork-broken', state: 'ready', problem: 'X' })],
    ['forks that are not an array', { ok: true, value: { forks: {} } }],
    ['a value that is not an object', { ok: true, value: 'forks' }],
    ['an array where the reply should be', [valid]],
    ['an own __proto__ key on a fork', withFork(JSON.parse(`{${JSON.stringify(first).slice(1, -1)},"__proto__":{"x":1}}`) as Record<string, unknown>)],
    ['an own __proto__ key on a branch', withFork({ ...first, branches: [JSON.parse(`{${JSON.stringify(branch).slice(1, -1)},"__proto__":{"x":1}}`)] })],
    ['a nullable key that is absent, not null', withFork(Object.fromEntries(Object.entries(first).filter(([key]) => key !== 'repo_name')))],
    ['a revision that is NaN', withFork({ ...first, revision: Number.NaN })],
    ['a revision that is Infinity', withFork({ ...first, revision: Number.POSITIVE_INFINITY })],
    ['a null entry among the forks', { ok: true, value: { forks: [first, null] } }],
  ];

  // The check's own fallback is the contract's schema, counted so a case shows which path answered it.
  const checked = async (input: unknown) => {
    let fellBack = 0;
    const check = STARTUP_REPLIES.listForks;
    if (check === undefined) throw new Error('listForks has no startup check');
    const result = await check(structuredClone(input), async () => ((fellBack += 1), replySchema('listForks')));
    return { result, fellBack };
  };

  it.each(cases)('answers %s exactly as the contract’s own parser does', async (_label, input) => {
    const { result } = await checked(input);
    const runtime = replySchema('listForks').safeParse(structuredClone(input));
    expect(result.success).toBe(runtime.success);
    if (runtime.success) expect(result.success && result.data).toEqual(runtime.data);
    else expect(!result.success && result.error.issues).toEqual(runtime.error.issues);
  });

  it('answers a valid list without loading the contract, and leaves an error, a bad list or an odd envelope to it', async () => {
    expect((await checked(valid)).fellBack).toBe(0);
    expect((await checked({ ok: true, value: { forks: [] } })).fellBack).toBe(0);
    for (const input of [
      { ok: false, error: { code: 'FORK_NOT_FOUND', message: 'no such fork' } },
      withFork({ ...first, state: 'winning' }),
      { ...valid, extra: 1 },
      { ok: 'true', value: valid.value },
      JSON.parse(`{"ok":true,"value":${JSON.stringify(valid.value)},"__proto__":{"ok":true}}`),
    ]) expect((await checked(input)).fellBack).toBe(1);
  });

  it('passes a valid list itself, without handing it to the runtime parser (else the page is as slow as before)', () => {
    const checked = listForksResponseParser(valid.value);
    expect(checked).not.toBe(Symbol.for('zod.compile.invalid'));
    expect(checked).toEqual(ListForksResponseSchema.parse(valid.value));
    // A fresh value, never the input itself: what the page keeps is what was checked.
    expect(checked).not.toBe(valid.value);
    expect(listForksResponseParser({ forks: [{ ...first, state: 'winning' }] })).toBe(Symbol.for('zod.compile.invalid'));
  });
});
