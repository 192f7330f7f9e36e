/**
 * The state names alone, without zod: the Forks view (the first page) lists them and must not load
 * the schema library to do so (issue 14's first-render bench). fork-record.ts builds the schemas from these.
 */

/** Parent fork states (spec/operation-fork.md, States). */
export const FORK_STATES = ['pending', 'running', 'ready', 'selected', 'landed', 'blocked', 'failed', 'unknown'] as const;

/** Branch states (the Operations Protocol states). */
export const BRANCH_STATES = ['pending', 'running', 'passed', 'failed', 'blocked', 'unknown'] as const;
