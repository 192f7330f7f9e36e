// Issue acceptance: listing 1,000 forks through the web host API, as a ratio to reading and parsing
// the same files directly. Target: at most 2.
//
// Both sides run in this process, interleaved round by round, and the medians are compared, so the
// ratio does not depend on process start-up or on a busy machine. The Citadel side is the real
// web host (main/web/web-host.ts) over the real Mission Control service, bundled on the fly with
// esbuild so that their external packages resolve from the repository's node_modules.
//
// What each side does for the same 1,000 `<CITADEL_HOME>/forks/<fork_id>/fork.json` files:
// - API: fetch POST /api/call/listForks over HTTP on 127.0.0.1 with the token header; the host
//   checks Host/token, reads the body, parses the request with its schema; listForks does readdir,
//   a ForkIdSchema check per entry, readFile + JSON.parse + ForkRecordSchema.safeParse per record,
//   the status projection, then the response schema check (ForkListEntrySchema per fork) and
//   JSON.stringify; the client parses the JSON reply. Each fork's contract.json is read too (a fork
//   whose contract no longer verifies is listed blocked, never ready): readFile + JSON.parse +
//   contract schema + its canonical digest compared with the record's.
// - bare: readdir + readFile + JSON.parse + ForkRecordSchema.parse per record, and the same read,
//   schema and digest of its contract.json (both parses are fair: the API does each too), with the
//   same Promise.all concurrency as listForks.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

export const name = 'web-list-1000-forks-vs-bare-read';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const TARGET = 2;
const FORKS = 1000;
const ROUNDS = 15;
const WARMUP = 3;

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';
const FORK_STATES = ['pending', 'running', 'ready', 'selected', 'landed', 'blocked', 'failed'];
const BRANCH_STATES = ['pending', 'running', 'passed', 'failed', 'blocked', 'unknown'];
const RUNTIMES = ['claude', 'codex', 'gemini', 'local-llm'];

export async function run({ log = (line) => process.stderr.write(`${line}\n`) } = {}) {
  const work = mkdtempSync(path.join(tmpdir(), 'citadel-bench-web-list-'));
  const bundle = path.join(repoRoot, 'out', 'bench', `web-list-${process.pid}.mjs`);
  let host = null;
  try {
    const home = path.join(work, 'root');
    const forksDir = path.join(home, 'forks');
    const staticDir = path.join(work, 'static');
    mkdirSync(staticDir, { recursive: true });
    writeFileSync(path.join(staticDir, 'index.html'), '<!doctype html><title>bench</title>\n');

    const entry = path.join(work, 'entry.ts');
    writeFileSync(
      entry,
      [
        `export { startWebHost } from ${JSON.stringify(path.join(repoRoot, 'main/web/web-host.ts'))};`,
        `export { createMissionControlService } from ${JSON.stringify(path.join(repoRoot, 'main/mission-control/service.ts'))};`,
        `export { openOrchestratorContext } from ${JSON.stringify(path.join(repoRoot, 'main/host/open-context.ts'))};`,
        `export { ForkRecordSchema } from ${JSON.stringify(path.join(repoRoot, 'shared/fork/fork-record.ts'))};`,
        `export { ContractV1Schema, ContractV2Schema } from ${JSON.stringify(path.join(repoRoot, 'shared/fork/contract.ts'))};`,
        `export { digestOf } from ${JSON.stringify(path.join(repoRoot, 'shared/digest.ts'))};`,
      ].join('\n'),
    );
    // Inside the repository, so the bundle's external packages resolve from its node_modules.
    await build({ entryPoints: [entry], outfile: bundle, bundle: true, platform: 'node', format: 'esm', packages: 'external', absWorkingDir: repoRoot, nodePaths: [path.join(repoRoot, 'node_modules')], logLevel: 'error' });
    const { startWebHost, createMissionControlService, openOrchestratorContext, ForkRecordSchema, ContractV1Schema, ContractV2Schema, digestOf } = await import(
      pathToFileURL(bundle).href
    );
    const contractSchema = (record) => (record.schema_version === 1 ? ContractV1Schema : ContractV2Schema);

    log(`  ${name}: writing ${FORKS} fork records and their contracts`);
    const records = syntheticRecords(FORKS);
    // Every record and contract, not just one, must pass the real schema and digest: an invalid one
    // would be listed as "unknown" or "blocked" without its full cost and flatter the API side.
    for (const { record, contract } of records) {
      ForkRecordSchema.parse(record);
      contractSchema(record).parse(contract);
      record.contract_digest = digestOf(contract);
      mkdirSync(path.join(forksDir, record.fork_id), { recursive: true });
      writeFileSync(path.join(forksDir, record.fork_id, 'fork.json'), `${JSON.stringify(record, null, 2)}\n`);
      writeFileSync(path.join(forksDir, record.fork_id, 'contract.json'), `${JSON.stringify(contract, null, 2)}\n`);
    }

    const env = { ...process.env, CITADEL_HOME: home, CITADEL_KEYSTORE: 'file', CITADEL_ISSUER: 'bench' };
    const ctx = await openOrchestratorContext({ env });
    const service = createMissionControlService(ctx, { log });
    host = await startWebHost({ service, port: 0, staticDir });
    const endpoint = `http://127.0.0.1:${host.port}/api/call/listForks`;
    const headers = { 'content-type': 'application/json', 'x-citadel-token': host.token };

    const api = async () => {
      const res = await fetch(endpoint, { method: 'POST', headers, body: '{"state":null}' });
      const reply = await res.json();
      if (res.status !== 200 || !reply.ok) throw new Error(`listForks failed: HTTP ${res.status} ${JSON.stringify(reply).slice(0, 300)}`);
      if (reply.value.forks.length !== FORKS) throw new Error(`listForks returned ${reply.value.forks.length} forks, expected ${FORKS}`);
      const unknown = reply.value.forks.find((f) => f.state === 'unknown');
      if (unknown) throw new Error(`listForks could not read ${unknown.fork_id}: ${unknown.problem}`);
      const listed = new Map(reply.value.forks.map((f) => [f.fork_id, f.state]));
      const changed = records.find(({ record }) => listed.get(record.fork_id) !== record.state);
      if (changed) throw new Error(`listForks shows ${changed.record.fork_id} as ${listed.get(changed.record.fork_id)}, not ${changed.record.state}: its contract did not verify`);
    };
    const bare = async () => {
      const ids = await readdir(forksDir);
      const parsed = await Promise.all(
        ids.map(async (id) => {
          const record = ForkRecordSchema.parse(JSON.parse(await readFile(path.join(forksDir, id, 'fork.json'), 'utf8')));
          const contract = contractSchema(record).parse(JSON.parse(await readFile(path.join(forksDir, id, 'contract.json'), 'utf8')));
          if (digestOf(contract) !== record.contract_digest) throw new Error(`bare: the contract of ${id} does not verify`);
          return record;
        }),
      );
      if (parsed.length !== FORKS) throw new Error(`bare read ${parsed.length} forks, expected ${FORKS}`);
    };

    for (let i = 0; i < WARMUP; i++) {
      await api();
      await bare();
    }
    const apiTimes = [];
    const bareTimes = [];
    for (let i = 0; i < ROUNDS; i++) {
      // Alternate which side goes first so neither always runs on a freshly collected heap.
      const order = i % 2 === 0 ? [['api', api, apiTimes], ['bare', bare, bareTimes]] : [['bare', bare, bareTimes], ['api', api, apiTimes]];
      for (const [, fn, times] of order) {
        const t = process.hrtime.bigint();
        await fn();
        times.push(Number(process.hrtime.bigint() - t) / 1e9);
      }
      log(`  ${name}: round ${i + 1}: api ${(apiTimes.at(-1) * 1000).toFixed(1)} ms, bare ${(bareTimes.at(-1) * 1000).toFixed(1)} ms`);
    }
    const a = median(apiTimes);
    const b = median(bareTimes);
    return {
      name,
      measurements: [
        { label: `web host listForks (${FORKS} forks)`, seconds: a },
        { label: 'readdir+readFile+JSON.parse+schema of the same files', seconds: b },
      ],
      ratio: a / b,
      target: { op: '<=', value: TARGET },
      ok: a / b <= TARGET,
    };
  } finally {
    if (host !== null) await host.close();
    rmSync(work, { recursive: true, force: true });
    rmSync(bundle, { force: true });
  }
}

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
    objective_digest: hexDigest(i + 200_000),
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

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
