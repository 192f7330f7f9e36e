import { describe, expect, it } from 'vitest';
import { importCycles } from '../../support/import-cycles';
import { REPO_ROOT } from '../../support/run-cli';

const PLANTED = 'test/fixtures/import-cycle';

// Cruising the whole tree parses every module: generous on a busy 2-core machine.
const CRUISE_TIMEOUT = 120_000;

/*
 * Folder cycles collapse each file to the folder that immediately contains it, not to its room
 * (`main/runtimes/supervisor`, not `main/runtimes`): rooms nest, and two folders of one room that
 * import each other are as tangled as two rooms are, yet invisible at room level. A parent folder
 * counts apart from its children too, so one that gathers them (a registry, a CLI program) is
 * never imported back by them: what both need lives in a folder of its own below both.
 */
describe('import cycles', () => {
  it(
    'finds none in the repository, between files or between folders, the planted ones aside',
    async () => {
      expect(await importCycles(REPO_ROOT, ['main', 'shared', 'preload', 'renderer', 'test', 'build'], `^${PLANTED}/`)).toEqual({ files: [], folders: [] });
    },
    CRUISE_TIMEOUT,
  );

  it(
    'finds the planted ones: two file cycles (one type-only) inside one folder, and a folder cycle without a file cycle',
    async () => {
      expect(await importCycles(REPO_ROOT, [PLANTED])).toEqual({
        files: [
          [`${PLANTED}/ping.ts`, `${PLANTED}/pong.ts`],
          [`${PLANTED}/record.ts`, `${PLANTED}/store.ts`],
        ],
        folders: [[`${PLANTED}/folder-knot/north`, `${PLANTED}/folder-knot/south`]],
      });
    },
    CRUISE_TIMEOUT,
  );
});
