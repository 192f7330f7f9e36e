import { describe, expect, it } from 'vitest';
import { importCycles } from '../../support/import-cycles';
import { REPO_ROOT } from '../../support/run-cli';

const PLANTED = 'test/fixtures/import-cycle';

// Cruising the whole tree parses every module: generous on a busy 2-core machine.
const CRUISE_TIMEOUT = 120_000;

describe('import cycles', () => {
  it(
    'finds none in the repository, the planted ones aside',
    async () => {
      expect(await importCycles(REPO_ROOT, ['main', 'shared', 'preload', 'renderer', 'test', 'build'], `^${PLANTED}/`)).toEqual([]);
    },
    CRUISE_TIMEOUT,
  );

  it(
    'finds the planted ones, a type-only cycle included',
    async () => {
      expect(await importCycles(REPO_ROOT, [PLANTED])).toEqual([
        [`${PLANTED}/ping.ts`, `${PLANTED}/pong.ts`],
        [`${PLANTED}/record.ts`, `${PLANTED}/store.ts`],
      ]);
    },
    CRUISE_TIMEOUT,
  );
});
