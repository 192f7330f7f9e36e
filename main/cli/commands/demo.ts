import path from 'node:path';
import { synthesizeLegacyProfiles } from '../../../shared/executors/legacy-runtimes';
import { describeExecutorSet } from '../../executors/describe-executor-set';
import { loadExecutorFile } from '../../executors/load-executor-file';
import { displayArgv, printJson, type Io } from '../output';
import { renderExecutorSet } from './executors-validate';

/**
 * Until the fork engine lands, the demo shows the executor-profile contract end to end on the
 * shipped example: validation, canonical digests and the exact argv each runtime would get,
 * for the example file and for the legacy `--runtimes claude,codex` form.
 */
export async function demo(io: Io, packageRoot: string, options: { json: boolean }): Promise<void> {
  const exampleFile = path.join(packageRoot, 'examples', 'executors.json');
  const fromFile = describeExecutorSet((await loadExecutorFile(exampleFile)).executors);
  const legacy = synthesizeLegacyProfiles('claude,codex');
  if (!legacy.ok) throw legacy.error;
  // Legacy input makes a schema 1 fork, which carries no executor digests (decisions D4).
  const fromLegacy = describeExecutorSet(legacy.value).profiles.map(({ branch_id, runtime, argv }) => ({ branch_id, runtime, argv }));
  if (options.json) {
    printJson(io, { executor_file: 'examples/executors.json', executors: fromFile, legacy_runtimes: fromLegacy });
    return;
  }
  io.stdout(
    [
      'Citadel demo (foundation): the executor-profile contract. No agent is run yet; forks arrive with the fork engine.',
      '',
      'examples/executors.json (schema 2 fork input):',
      renderExecutorSet(fromFile),
      '--runtimes claude,codex (legacy, schema 1 fork input; no executor digests):',
      ...fromLegacy.map((branch) => `  ${branch.branch_id} (${branch.runtime}, model default)\n    argv  ${displayArgv(branch.argv)}`),
      '',
    ].join('\n'),
  );
}
