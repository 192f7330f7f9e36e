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
//   contract schema + its canonical digest compared with the record's. Each fork's labels (issue
//   14): objective.txt read and its SHA-256 compared with the contract's objective_digest, its
//   first line kept as the title; request.json parsed for the repository name.
// - bare: readdir + readFile + JSON.parse + ForkRecordSchema.parse per record, and the same read,
//   schema and digest of its contract.json (both parses are fair: the API does each too), the same
//   objective read, digest and first line, and request.json parsed, with the same Promise.all
//   concurrency as listForks.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { sha256, writeSyntheticForks } from './synthetic-forks.mjs';

export const name = 'web-list-1000-forks-vs-bare-read';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const TARGET = 2;
const FORKS = 1000;
const ROUNDS = 15;
const WARMUP = 3;


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

    log(`  ${name}: writing ${FORKS} fork records, their contracts, objectives and requests`);
    const records = writeSyntheticForks(forksDir, FORKS, { ForkRecordSchema, contractSchema, digestOf });

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
      const untitled = reply.value.forks.find((f) => f.title === null || f.repo_name === null);
      if (untitled) throw new Error(`listForks shows ${untitled.fork_id} without its title or repository: its labels were not read`);
    };
    const bare = async () => {
      const ids = await readdir(forksDir);
      const parsed = await Promise.all(
        ids.map(async (id) => {
          const record = ForkRecordSchema.parse(JSON.parse(await readFile(path.join(forksDir, id, 'fork.json'), 'utf8')));
          const contract = contractSchema(record).parse(JSON.parse(await readFile(path.join(forksDir, id, 'contract.json'), 'utf8')));
          if (digestOf(contract) !== record.contract_digest) throw new Error(`bare: the contract of ${id} does not verify`);
          const objective = await readFile(path.join(forksDir, id, 'objective.txt'));
          if (sha256(objective) !== contract.objective_digest) throw new Error(`bare: the objective of ${id} is not the contract's`);
          const title = objective.toString('utf8').split('\n', 1)[0];
          const repo = path.basename(JSON.parse(await readFile(path.join(forksDir, id, 'request.json'), 'utf8')).repo);
          return { record, title, repo };
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

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
