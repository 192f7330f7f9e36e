import type * as SecretlintCore from '@secretlint/core';
import { rules as recommendedRules } from '@secretlint/secretlint-rule-preset-recommend';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { CitadelError, ViolationSchema } from '../../../shared/errors';
import { REDACTION_RULE_IDS, assertRedacted, scanForSecrets } from '../../../main/publish/redaction/secret-scan';
import { ALPHABETS, fakeDigest, fill, replayLike } from '../../fixtures/secrets/corpus';

// Counts lint calls; behaviour is the real secretlint's.
const lint = vi.hoisted(() => ({ calls: 0 }));
vi.mock('@secretlint/core', async (importOriginal) => {
  const core = await importOriginal<typeof SecretlintCore>();
  return {
    ...core,
    lintSource: (options: Parameters<typeof core.lintSource>[0]) => {
      lint.calls += 1;
      return core.lintSource(options);
    },
  };
});

const githubToken = (seed: number): string => 'gh' + 'p_' + 'FAKE' + fill(seed, 32, ALPHABETS.base62);
/** An AWS secret that only secretlint reports by that rule (the value alone is also high-entropy). */
const awsAssignment = 'aws_secret_access_key=' + fill(201, 39, ALPHABETS.base64) + 'Q';

describe('scanForSecrets', () => {
  beforeEach(() => {
    lint.calls = 0;
  });

  it('names values by JSONPath, odd keys quoted, arrays by index, the root as $', async () => {
    expect(await scanForSecrets({ branches: [{ model: { observed: '/home/alice' } }] })).toEqual([{ path: '$.branches[0].model.observed', rule: 'citadel/absolute-path' }]);
    expect(await scanForSecrets({ 'odd key.x': ['ok', '/tmp/x'] })).toEqual([{ path: '$["odd key.x"][1]', rule: 'citadel/absolute-path' }]);
    expect(await scanForSecrets('/tmp/x')).toEqual([{ path: '$', rule: 'citadel/absolute-path' }]);
  });

  it('names a flagged key by position, in its own path and in every path beneath it', async () => {
    const key = '/Users/alice/project';
    const hits = await scanForSecrets({ model: { requested: 'x', [key]: { note: '~/notes', fine: 'ok' } } });
    expect(hits).toEqual([
      { path: '$.model.<key#1>', rule: 'citadel/absolute-path' },
      { path: '$.model.<key#1>.note', rule: 'citadel/absolute-path' },
    ]);
  });

  it('reports every value JSON cannot carry faithfully, so nothing reaches the serializer unscanned', async () => {
    const cyclic: Record<string, unknown> = { ok: 'fine' };
    cyclic['self'] = cyclic;
    const hits = await scanForSecrets({
      missing: undefined,
      fn: () => 'secret',
      at: new Date(0),
      map: new Map([['k', 'v']]),
      big: 1n,
      nan: Number.NaN,
      inf: Number.POSITIVE_INFINITY,
      sym: Symbol('x'),
      cyclic,
    });
    expect(hits.map(({ path }) => path)).toEqual(['$.missing', '$.fn', '$.at', '$.map', '$.big', '$.nan', '$.inf', '$.sym', '$.cyclic.self']);
    expect(new Set(hits.map(({ rule }) => rule))).toEqual(new Set(['citadel/non-json']));
  });

  it('accepts a value shared by two fields (not a cycle) and objects without a prototype', async () => {
    const shared = { digest: fakeDigest(202) };
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { state: 'ready' });
    expect(await scanForSecrets({ a: shared, b: shared, bare })).toEqual([]);
  });

  it('walks hostile nesting without overflowing the stack', async () => {
    let deep: unknown = githubToken(203);
    for (let depth = 0; depth < 50_000; depth += 1) deep = [deep];
    const hits = await scanForSecrets(deep);
    expect(hits.map(({ rule }) => rule)).toContain('@secretlint/secretlint-rule-github');
    expect(hits[0]?.path).toBe(`$${'[0]'.repeat(50_000)}`);
  });

  it('lints all strings of a document in one secretlint call and maps hits back to each string', async () => {
    const doc = replayLike();
    const notes = Array.from({ length: 500 }, (_, index) => `note ${index}`);
    notes[137] = githubToken(204);
    notes[499] = awsAssignment;
    doc['notes'] = notes;
    const hits = await scanForSecrets(doc);
    expect(lint.calls).toBe(1);
    expect(hits.filter(({ rule }) => rule.startsWith('@secretlint/'))).toEqual([
      { path: '$.notes[137]', rule: '@secretlint/secretlint-rule-github' },
      { path: '$.notes[499]', rule: '@secretlint/secretlint-rule-aws' },
    ]);
  });

  it('is not muted by secretlint-disable comments inside the scanned data', async () => {
    const hits = await scanForSecrets({ a: 'secretlint-disable', b: '// secretlint-disable-next-line', c: awsAssignment });
    expect(hits).toContainEqual({ path: '$.c', rule: '@secretlint/secretlint-rule-aws' });
  });

  it('keeps offsets right when the first string starts with a byte-order mark', async () => {
    const hits = await scanForSecrets(['\uFEFF', githubToken(205)]);
    expect(hits).toContainEqual({ path: '$[1]', rule: '@secretlint/secretlint-rule-github' });
  });

  it('never joins neighbouring strings into one match', async () => {
    const slackHead = 'xo' + 'xb-';
    const hits = await scanForSecrets([slackHead, fill(206, 12, ALPHABETS.digits) + '-' + fill(207, 13, ALPHABETS.digits) + '-abc']);
    expect(hits).toEqual([]);
  });

  it('runs the whole recommended preset except its comment filter, with AWS key ids on', async () => {
    const expected = recommendedRules.map((rule) => rule.meta.id).filter((id) => id !== '@secretlint/secretlint-rule-filter-comments');
    expect(expected.length).toBe(recommendedRules.length - 1);
    expect(REDACTION_RULE_IDS.filter((id) => id.startsWith('@secretlint/'))).toEqual(expected);
    expect(await scanForSecrets(['AK' + 'IA' + fill(208, 16, ALPHABETS.upper36)])).toContainEqual({ path: '$[0]', rule: '@secretlint/secretlint-rule-aws' });
  });
});

describe('assertRedacted', () => {
  it('returns for a clean document', async () => {
    await expect(assertRedacted(replayLike())).resolves.toBeUndefined();
  });

  it('refuses with REPLAY_REDACTION_VIOLATION, one violation per hit, naming paths and never the value', async () => {
    const token = githubToken(209);
    const error: unknown = await assertRedacted({ branches: [{ model: { observed: token } }], home: '/home/alice' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CitadelError);
    const data = (error as CitadelError).toData();
    expect(data.code).toBe('REPLAY_REDACTION_VIOLATION');
    expect(data.message).toContain('$.branches[0].model.observed');
    expect(data.message).toContain('$.home');
    expect(data.violations?.map(({ path, rule }) => ({ path, rule }))).toEqual(await scanForSecrets({ branches: [{ model: { observed: token } }], home: '/home/alice' }));
    for (const violation of data.violations ?? []) expect(ViolationSchema.parse(violation)).toEqual(violation);
    expect(JSON.stringify(data)).not.toContain(token.slice(0, 8));
  });

  it('names at most five paths in its message and counts the rest', async () => {
    const doc = Object.fromEntries(Array.from({ length: 7 }, (_, index) => [`p${index}`, `/tmp/${index}`]));
    const error: unknown = await assertRedacted(doc).catch((caught: unknown) => caught);
    expect((error as CitadelError).message).toBe('export refused, nothing written: secret-like value or local path at $.p0, $.p1, $.p2, $.p3, $.p4 and 2 more');
    expect((error as CitadelError).violations).toHaveLength(7);
  });
});
