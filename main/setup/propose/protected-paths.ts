import picomatch from 'picomatch';
import type { ProposalFinding } from '../../../shared/fork/workflow-proposal';
import { REPOSITORY_CONFIG_PROTECTED, REPOSITORY_WORKFLOW_PATH } from '../../../shared/fork/workflow-proposal';
import type { RepositoryFiles } from './repository-files';

const TEST_DIRECTORIES = ['test', 'tests', '__tests__', 'spec', 'testdata'];

/** Test files that live beside the code they test, as globs (matched as the collector matches: picomatch, dot files included). */
const TEST_FILE_GLOBS = [
  '**/*.test.{ts,tsx,js,jsx,mjs,cjs,mts,cts}',
  '**/*.spec.{ts,tsx,js,jsx,mjs,cjs,mts,cts}',
  '**/*_test.go',
  '**/test_*.py',
  '**/*_test.py',
  '**/conftest.py',
];

/** Configuration of the test runners: changing it changes what the verifier checks. */
const TEST_CONFIG_GLOBS = ['{jest,vitest,playwright,karma,cypress}.config.*', '.mocharc.*', 'pytest.ini', 'tox.ini', 'noxfile.py'];

const CI_FILES = ['.github/workflows/**', '.gitlab-ci.yml', '.circleci/**', 'azure-pipelines.yml', 'Jenkinsfile'];

/**
 * The paths a branch may not change (the collector fails a branch that does): the tests and their
 * configuration, the CI configuration, the lockfiles setup installs from, and Citadel's own
 * folder, each proposed only when the repository has something it matches.
 */
export function proposeProtectedPaths(files: RepositoryFiles, lockfiles: readonly string[]): { paths: string[]; findings: ProposalFinding[] } {
  const paths: string[] = [];
  const findings: ProposalFinding[] = [];
  const add = (pattern: string, evidence: string): void => {
    if (paths.includes(pattern)) return;
    paths.push(pattern);
    findings.push({ part: 'protected_paths', proposal: pattern, evidence });
  };

  for (const dir of TEST_DIRECTORIES) if (files.hasDirectory(dir)) add(`${dir}/**`, `${dir}/ holds tests`);
  const inTestDirectory = paths.length === 0 ? () => false : picomatch(paths, { dot: true });
  for (const glob of TEST_FILE_GLOBS) {
    const matches = matching(files, glob).filter((file) => !inTestDirectory(file));
    if (matches.length > 0) add(glob, `test files beside the code (${sample(matches)})`);
  }
  for (const glob of TEST_CONFIG_GLOBS) for (const file of matching(files, glob)) add(file, 'test runner configuration');
  for (const pattern of CI_FILES) {
    const matches = matching(files, pattern);
    if (matches.length > 0) add(pattern, `CI configuration (${sample(matches)})`);
  }
  for (const lockfile of lockfiles) add(lockfile, 'setup installs from it before the agent starts');
  add(REPOSITORY_CONFIG_PROTECTED, `Citadel's own configuration (${REPOSITORY_WORKFLOW_PATH})`);
  return { paths, findings };
}

/** Compiled once per glob: a repository may track hundreds of thousands of files. */
function matching(files: RepositoryFiles, glob: string): string[] {
  const isMatch = picomatch(glob, { dot: true });
  return files.tracked.filter((file) => isMatch(file));
}

const sample = (files: readonly string[]): string => `${files.slice(0, 3).join(', ')}${files.length > 3 ? `, and ${files.length - 3} more` : ''}`;
