/**
 * Author and committer of every commit Citadel makes (worktree results, landing merges). Set through
 * the environment, which outranks any `user.*` config, so the operator's identity never leaks in.
 */
export const CITADEL_IDENTITY_ENV: Readonly<Record<string, string>> = {
  GIT_AUTHOR_NAME: 'Citadel',
  GIT_AUTHOR_EMAIL: 'citadel@localhost',
  GIT_COMMITTER_NAME: 'Citadel',
  GIT_COMMITTER_EMAIL: 'citadel@localhost',
};
