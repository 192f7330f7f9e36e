import { describe, expect, it } from 'vitest';
import { isCitadelError } from '../../../shared/errors';
import { assertRedacted, scanForSecrets } from '../../../main/publish/redaction/secret-scan';
import { SECRET_CORPUS, replayLike } from '../../fixtures/secrets/corpus';
import type { CorpusEntry } from '../../fixtures/secrets/corpus';

type Container = { readonly path: string; readonly pick: (doc: Record<string, unknown>) => Record<string, unknown> };

/** Objects at depth 1, 3 and 5 of the replay-like document. */
const CONTAINERS: readonly Container[] = [
  { path: '$', pick: (doc) => doc },
  { path: '$.branches[1].model', pick: (doc) => (doc as { branches: { model: Record<string, unknown> }[] }).branches[1]?.model ?? {} },
  {
    path: '$.branches[0].verifier.steps[2].extra',
    pick: (doc) => (doc as { branches: { verifier: { steps: { extra: Record<string, unknown> }[] } }[] }).branches[0]?.verifier.steps[2]?.extra ?? {},
  },
];

/** Injects the secret at every depth as a whole value, inside a sentence, and as an object key. */
function injected(entry: CorpusEntry): { doc: Record<string, unknown>; paths: string[] } {
  const doc = replayLike();
  const paths: string[] = [];
  for (const { path, pick } of CONTAINERS) {
    const container = pick(doc);
    container['leaked_value'] = entry.secret;
    container['leaked_sentence'] = `The runtime printed ${entry.secret} before it exited.`;
    const keyPosition = Object.keys(container).length;
    container[entry.secret] = 'present';
    paths.push(`${path}.leaked_value`, `${path}.leaked_sentence`, `${path}.<key#${keyPosition}>`);
  }
  return { doc, paths };
}

/** Everything a caller can see of a refusal, as text. */
async function refusalText(doc: unknown): Promise<string> {
  try {
    await assertRedacted(doc);
  } catch (error) {
    if (!isCitadelError(error)) throw error;
    return `${error.message}\n${JSON.stringify(error.toData())}`;
  }
  throw new Error('expected the export to be refused');
}

describe('redaction corpus', () => {
  it('holds at least 30 distinct secret shapes, each a distinct value', () => {
    expect(new Set(SECRET_CORPUS.map(({ shape }) => shape)).size).toBe(SECRET_CORPUS.length);
    expect(new Set(SECRET_CORPUS.map(({ secret }) => secret)).size).toBe(SECRET_CORPUS.length);
    expect(SECRET_CORPUS.length).toBeGreaterThanOrEqual(30);
  });

  describe.each(SECRET_CORPUS)('$shape', (entry) => {
    it('is caught as a value, in a sentence and as a key, at depths 1, 3 and 5, with the exact paths', async () => {
      const { doc, paths } = injected(entry);
      const hits = await scanForSecrets(doc);
      expect([...new Set(hits.map(({ path }) => path))].sort()).toEqual([...paths].sort());
      for (const path of paths) {
        expect(hits.filter((hit) => hit.path === path).map(({ rule }) => rule), path).toContain(entry.rule);
      }
    });

    it('never shows the secret or its beginning in hits, paths, messages or violations', async () => {
      const { doc } = injected(entry);
      const shown = `${JSON.stringify(await scanForSecrets(doc))}\n${await refusalText(doc)}`;
      expect(shown).toContain('REPLAY_REDACTION_VIOLATION');
      expect(shown).not.toContain(entry.secret.slice(0, 8));
      expect(shown).not.toContain(entry.secret.slice(-8));
    });
  });
});
