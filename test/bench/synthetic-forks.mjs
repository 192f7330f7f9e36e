// 1,000 synthetic forks for the list benchmarks (web-list, forks-render): records, contracts, and
// the objective and request files a fork's labels are read from; deterministic.

import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';
const FORK_STATES = ['pending', 'running', 'ready', 'selected', 'landed', 'blocked', 'failed'];
const BRANCH_STATES = ['pending', 'running', 'passed', 'failed', 'blocked', 'unknown'];
const RUNTIMES = ['claude', 'codex', 'gemini', 'local-llm'];
const REPOS = ['payments', 'web-app', 'billing-service', 'docs'];

/**
 * Writes `count` forks under `forksDir`: each fork.json, contract.json (whose digest the record
 * binds, checked with the real schemas and digest given), objective.txt (the digest the contract
 * binds) and request.json. Returns the records and contracts written.
 */
export function writeSyntheticForks(forksDir, count, { ForkRecordSchema, contractSchema, digestOf }) {
  const records = syntheticRecords(count);
  // Every record and contract, not just one, must pass the real schema and digest: an invalid one
  // would be listed as "unknown" or "blocked" without its full cost and flatter the API side.
  for (const [i, { record, contract }] of records.entries()) {
    ForkRecordSchema.parse(record);
    contractSchema(record).parse(contract);
    record.contract_digest = digestOf(contract);
    const dir = path.join(forksDir, record.fork_id);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'fork.json'), `${JSON.stringify(record, null, 2)}\n`);
    writeFileSync(path.join(dir, 'contract.json'), `${JSON.stringify(contract, null, 2)}\n`);
    writeFileSync(path.join(dir, 'objective.txt'), objectiveOf(i));
    writeFileSync(path.join(dir, 'request.json'), `${JSON.stringify({ repo: `/home/operator/src/${REPOS[i % REPOS.length]}`, profiles: [] }, null, 2)}\n`);
  }
  return records;
}

/** A few lines, the first of which is the fork's title. */
export function objectiveOf(i) {
  return `Fix bug ${i} in the ${['parser', 'scheduler', 'exporter', 'login form'][i % 4]} so that its tests pass again\n\nThe failing test is test/case-${i}.test.js; keep the public API as it is.\n`;
}

export const sha256 = (text) => `sha256:${createHash('sha256').update(text).digest('hex')}`;

/** One template, varied ids, schema versions (1 and 2), 2–4 branches and states; deterministic. */
function syntheticRecords(count) {
  const start = Date.UTC(2025, 0, 1);
  const records = [];
  for (let i = 0; i < count; i++) {
    const createdMs = start + i * 60_000;
    const at = (offsetS) => new Date(createdMs + offsetS * 1000).toISOString();
    const state = FORK_STATES[i % FORK_STATES.length];
    const schemaVersion = i % 3 === 0 ? 1 : 2;
    const branchCount = 2 + (i % 3);
    const branches = Array.from({ length: branchCount }, (_, j) => {
      const runtime = RUNTIMES[(i + j) % RUNTIMES.length];
      const branchState = BRANCH_STATES[(i + j) % BRANCH_STATES.length];
      const profileId = `${runtime}-${String(j).padStart(2, '0')}`;
      return {
        branch_id: `branch-${profileId}`,
        profile_id: profileId,
        runtime,
        executor_profile_digest: schemaVersion === 1 ? null : hexDigest(i * 8 + j),
        git_branch: `citadel/${forkId(createdMs, i)}/branch-${profileId}`,
        attempt: 1 + ((i + j) % 2),
        state: branchState,
        failure_code: branchState === 'failed' ? 'RUNTIME_EXITED_NONZERO' : null,
        blocked_reason: branchState === 'blocked' ? 'process_lost' : null,
        history: [
          { state: 'pending', at: at(1) },
          { state: 'running', at: at(2) },
          { state: branchState, at: at(30 + j) },
        ],
      };
    });
    const record = {
      schema_version: schemaVersion,
      fork_id: forkId(createdMs, i),
      demo: i % 10 === 0,
      revision: 3 + (i % 5),
      state,
      created_at: at(0),
      base_revision: hex(i, 40),
      // Set to the contract's own digest once it is built.
      contract_digest: hexDigest(i),
      executor_set_digest: schemaVersion === 1 ? null : hexDigest(i + 100_000),
      history: [
        { state: 'pending', at: at(0) },
        { state: 'running', at: at(1) },
        { state, at: at(60) },
      ],
      branches,
    };
    records.push({ record, contract: syntheticContract(record, i) });
  }
  return records;
}

/** A contract of the record's schema that binds its base revision (and, schema 2, its executor set). */
function syntheticContract(record, i) {
  const contract = {
    objective_digest: sha256(objectiveOf(i)),
    scope: { repository: 'whole', effects: 'branch_worktree' },
    policy: { protected_paths: ['test/**'], landing: 'selection_and_confirmation' },
    budget: { max_duration_seconds: 1800, max_cost_usd: null, max_attempts: 1 },
    workflow: { source: 'file', steps: [{ id: 'fix', instruction: `Fix bug ${i}.` }], file_path_in_repo: null, file_digest: hexDigest(i + 300_000) },
    verifier: { builtin: ['git_diff_check'], command: { command: 'node', args: ['--test'], timeout_seconds: 120 } },
    base_revision: record.base_revision,
  };
  if (record.schema_version === 1) return contract;
  return { ...contract, executor_set_digest: record.executor_set_digest, signer_public_key_digest: hexDigest(i + 400_000), issuer_id: 'bench' };
}

/** `fork-` + a ULID-shaped id: 10 base32 characters of time, 16 of a counter-derived "random" part. */
function forkId(ms, i) {
  let time = '';
  for (let n = ms, k = 0; k < 10; k++, n = Math.floor(n / 32)) time = CROCKFORD[n % 32] + time;
  let rand = '';
  for (let k = 0, n = i * 2654435761; k < 16; k++) {
    rand += CROCKFORD[(n >>> 0) % 32];
    n = Math.imul(n ^ (n >>> 13), 1274126177) + k;
  }
  return `fork-${time}${rand}`;
}

function hex(seed, length) {
  let out = '';
  for (let n = (seed + 1) * 2246822519; out.length < length; n = Math.imul(n ^ (n >>> 15), 2654435761) + 1) out += (n >>> 0).toString(16).padStart(8, '0');
  return out.slice(0, length);
}

function hexDigest(seed) {
  return `sha256:${hex(seed, 64)}`;
}

