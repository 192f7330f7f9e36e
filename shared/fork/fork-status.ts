import type { ForkRecord, ForkStatus } from './fork-record';

/** The D13 status projection of a fork record. */
export function forkStatusOf(record: ForkRecord): ForkStatus {
  return {
    fork_id: record.fork_id,
    schema_version: record.schema_version,
    demo: record.demo,
    state: record.state,
    revision: record.revision,
    base_revision: record.base_revision,
    contract_digest: record.contract_digest,
    executor_set_digest: record.executor_set_digest,
    created_at: record.created_at,
    branches: record.branches.map((b) => ({
      branch_id: b.branch_id,
      profile_id: b.profile_id,
      runtime: b.runtime,
      state: b.state,
      failure_code: b.failure_code,
      blocked_reason: b.blocked_reason,
      blocked_code: b.blocked_code ?? null,
      attempt: b.attempt,
    })),
  };
}
