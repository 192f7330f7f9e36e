import { parseJsonText } from '../../../shared/json-text';
import type { ProposalFinding } from '../../../shared/fork/workflow-proposal';
import type { SetupStepFile } from '../../../shared/fork/workflow';
import { fetchStep, note, type EcosystemReading, type ProposedVerifier } from './ecosystem';
import type { RepositoryFiles } from './repository-files';

type Manager = 'npm' | 'pnpm' | 'yarn' | 'bun';

/** Lockfiles in the order a tie is broken when `packageManager` does not decide it. */
const LOCKFILES: readonly { file: string; manager: Manager }[] = [
  { file: 'package-lock.json', manager: 'npm' },
  { file: 'npm-shrinkwrap.json', manager: 'npm' },
  { file: 'pnpm-lock.yaml', manager: 'pnpm' },
  { file: 'yarn.lock', manager: 'yarn' },
  { file: 'bun.lock', manager: 'bun' },
  { file: 'bun.lockb', manager: 'bun' },
];

/** What `npm init` writes as `scripts.test`: a placeholder that fails, not the project's tests. */
const NPM_PLACEHOLDER_TEST = /no test specified/;

/**
 * A Node project at the repository's top: setup from its lockfile, the verifier from
 * `scripts.test`, run by the package manager the lockfile (or `packageManager`) names.
 */
export async function readNodeProject(files: RepositoryFiles): Promise<EcosystemReading | null> {
  if (!files.has('package.json')) return null;
  const parsed = parseJsonText((await files.read('package.json')) ?? '');
  const manifest = parsed.ok && isRecord(parsed.value) ? parsed.value : null;
  const findings: ProposalFinding[] = [];
  if (manifest === null) findings.push(note('package.json was not read as a JSON object: no test script found', 'package.json'));

  const declared = declaredManager(manifest?.packageManager);
  const present = LOCKFILES.filter((entry) => files.has(entry.file));
  const lock = present.find((entry) => entry.manager === declared) ?? present[0] ?? null;
  if (present.length > 1 && lock !== null) {
    const others = present.filter((entry) => entry !== lock).map((entry) => entry.file);
    findings.push(note(`several lockfiles: ${lock.file} is used, ${others.join(', ')} not`, declared === null ? 'the first in npm, pnpm, yarn, bun order' : `package.json packageManager: ${String(manifest?.packageManager)}`));
  }
  const manager: Manager = lock?.manager ?? declared ?? 'npm';

  const setup: SetupStepFile[] = [];
  if (lock === null) {
    findings.push(note('no setup step: package.json has no lockfile beside it, and an install without one is not reproducible', 'package.json'));
  } else {
    const install = installStep(manager, lock.file, await isYarnBerry(files, manifest));
    setup.push(install.step);
    findings.push(install.finding);
  }

  const verifier = testScript(manager, manifest?.scripts);
  if (verifier === null && manifest !== null) findings.push(note('no test command: package.json has no scripts.test (or only npm\'s "no test specified" placeholder)', 'package.json'));
  return { ecosystem: manager, setup, verifier, lockfiles: lock === null ? [] : [lock.file], findings };
}

function installStep(manager: Manager, lockfile: string, berry: boolean): ReturnType<typeof fetchStep> {
  switch (manager) {
    case 'npm':
      return fetchStep('npm-ci', ['npm', 'ci'], lockfile);
    case 'pnpm':
      return fetchStep('pnpm-install', ['pnpm', 'install', '--frozen-lockfile'], lockfile);
    case 'yarn':
      // Yarn 2+ (berry) replaced --frozen-lockfile with --immutable.
      return berry
        ? fetchStep('yarn-install', ['yarn', 'install', '--immutable'], `${lockfile} and .yarnrc.yml (Yarn 2 or later)`)
        : fetchStep('yarn-install', ['yarn', 'install', '--frozen-lockfile'], `${lockfile} (Yarn 1: no .yarnrc.yml)`);
    case 'bun':
      return fetchStep('bun-install', ['bun', 'install', '--frozen-lockfile'], lockfile);
  }
}

async function isYarnBerry(files: RepositoryFiles, manifest: Record<string, unknown> | null): Promise<boolean> {
  if (files.has('.yarnrc.yml')) return true;
  const version = /^yarn@(\d+)/.exec(typeof manifest?.packageManager === 'string' ? manifest.packageManager : '');
  return version !== null && Number(version[1]) >= 2;
}

function testScript(manager: Manager, scripts: unknown): ProposedVerifier | null {
  if (!isRecord(scripts)) return null;
  const test = scripts.test;
  if (typeof test !== 'string' || test.trim() === '' || NPM_PLACEHOLDER_TEST.test(test)) return null;
  // `bun test` is bun's own test runner, not the script: the script is `bun run test`.
  const args = manager === 'bun' ? ['run', 'test'] : ['test'];
  return { command: manager, args, evidence: `package.json scripts.test: ${test}` };
}

function declaredManager(value: unknown): Manager | null {
  const name = typeof value === 'string' ? /^(npm|pnpm|yarn|bun)@/.exec(value)?.[1] : undefined;
  return name === 'npm' || name === 'pnpm' || name === 'yarn' || name === 'bun' ? name : null;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
