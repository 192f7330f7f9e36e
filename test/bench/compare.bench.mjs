// Issue "Evidence you can trust": compare of a fork with 16 branches, with full re-verification
// from disk, as a ratio to the bare cost of reading those same files and running node:crypto
// verify on the same signatures. Target: at most 3.
//
// Both sides run in this process, interleaved, so the ratio does not depend on process start-up.
// The Citadel side is the real `verifyFork` + `compareBranches`, bundled on the fly with esbuild.

import { execFileSync, spawnSync } from 'node:child_process';
import { createPublicKey, verify } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

export const name = 'compare-16-branches-vs-bare-verify';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLI = path.join(repoRoot, 'out', 'cli', 'citadel.mjs');
const SIMULATOR = path.join(repoRoot, 'out', 'cli', 'simulated-runtime.mjs');
const TARGET = 3;
const ITERATIONS = 30;

const PROFILES = Array.from({ length: 16 }, (_, i) => {
  const runtime = i % 2 === 0 ? 'claude' : 'codex';
  return { profile_id: `${runtime}-${String(i).padStart(2, '0')}`, runtime, model: runtime === 'claude' ? 'claude-sonnet-4-5' : 'gpt-5.1-codex', local_provider: null, adapter_options: {} };
});

export async function run({ log = (line) => process.stderr.write(`${line}\n`) } = {}) {
  const work = mkdtempSync(path.join(tmpdir(), 'citadel-bench-compare-'));
  try {
    const env = { ...process.env, CITADEL_HOME: path.join(work, 'root'), CITADEL_KEYSTORE: 'file', CITADEL_ISSUER: 'bench', CODEX_HOME: path.join(work, 'codex-home') };
    const bin = path.join(work, 'bin');
    const repo = path.join(work, 'repo');
    mkdirSync(repo, { recursive: true });
    mkdirSync(env.CODEX_HOME, { recursive: true });
    writeFileSync(path.join(repo, 'README.md'), '# bench\n');
    const git = (...args) => execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@b', '-c', 'commit.gpgsign=false', ...args], { cwd: repo });
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-qm', 'init');
    const { installSimulatedRuntimes } = await import(pathToFileURL(SIMULATOR).href);
    await installSimulatedRuntimes(bin, { edits: [{ path: 'CHANGE.md', content: 'change\n' }] }, process.execPath, SIMULATOR);
    writeFileSync(path.join(work, 'executors.json'), JSON.stringify({ schema_version: 1, executors: PROFILES }));
    log(`  ${name}: running a 16-branch fork with simulated runtimes`);
    const start = spawnSync(process.execPath, [CLI, 'fork', 'start', 'bench', '--executors', path.join(work, 'executors.json'), '--repo', repo, '--json'], {
      env: { ...env, PATH: `${bin}${path.delimiter}${process.env.PATH}` },
      encoding: 'utf8',
    });
    if (start.status !== 0) throw new Error(`fork start failed: ${start.stdout}${start.stderr}`);
    const forkId = JSON.parse(start.stdout).fork_id;

    const entry = path.join(work, 'entry.ts');
    writeFileSync(
      entry,
      [
        `export { verifyFork } from ${JSON.stringify(path.join(repoRoot, 'main/evidence/verify-fork.ts'))};`,
        `export { compareBranches } from ${JSON.stringify(path.join(repoRoot, 'shared/fork/compare.ts'))};`,
        `export { openOrchestratorContext } from ${JSON.stringify(path.join(repoRoot, 'main/host/open-context.ts'))};`,
      ].join('\n'),
    );
    // Inside the repository, so the bundle's external packages resolve from its node_modules.
    const bundle = path.join(repoRoot, 'out', 'bench', `verify-${process.pid}.mjs`);
    await build({ entryPoints: [entry], outfile: bundle, bundle: true, platform: 'node', format: 'esm', packages: 'external', absWorkingDir: repoRoot, nodePaths: [path.join(repoRoot, 'node_modules')], logLevel: 'error' });
    const { verifyFork, compareBranches, openOrchestratorContext } = await import(pathToFileURL(bundle).href);
    const ctx = await openOrchestratorContext({ env });

    const citadel = async () => {
      const verified = await verifyFork(ctx, forkId);
      const comparison = compareBranches(verified.branches);
      const unverified = verified.branches.filter((b) => !b.receipt_verified);
      if (comparison.branches.filter((b) => b.receipt_verified).length !== 16) {
        throw new Error(`not every branch verified: ${unverified.map((b) => `${b.branch_id} (${b.reasons.join(', ')})`).join('; ')}`);
      }
    };
    const forkDir = path.join(env.CITADEL_HOME, 'forks', forkId);
    const bare = () => {
      for (const f of ['fork.json', 'contract.json', 'request.json']) JSON.parse(readFileSync(path.join(forkDir, f), 'utf8'));
      const signer = JSON.parse(readFileSync(path.join(forkDir, 'signer.json'), 'utf8'));
      const key = createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from(signer.public_key_hex, 'hex')]), format: 'der', type: 'spki' });
      for (const branch of readdirSync(path.join(forkDir, 'branches'))) {
        const dir = path.join(forkDir, 'branches', branch, 'attempt-1');
        for (const f of ['execution-receipt.json', 'fork-receipt.json']) {
          const envelope = JSON.parse(readFileSync(path.join(dir, f), 'utf8'));
          // The bare side signs-checks the same bytes Citadel checks (canonical JSON of the receipt).
          const ok = verify(null, Buffer.from(canonical(envelope.receipt)), key, Buffer.from(envelope.signature, 'base64'));
          if (!ok) throw new Error(`bare verify failed for ${branch}/${f}`);
        }
        JSON.parse(readFileSync(path.join(dir, 'observation.json'), 'utf8'));
      }
    };
    await citadel();
    bare();
    const citadelTimes = [];
    const bareTimes = [];
    for (let i = 0; i < ITERATIONS; i++) {
      let t = process.hrtime.bigint();
      await citadel();
      citadelTimes.push(Number(process.hrtime.bigint() - t) / 1e9);
      t = process.hrtime.bigint();
      bare();
      bareTimes.push(Number(process.hrtime.bigint() - t) / 1e9);
    }
    const c = median(citadelTimes);
    const b = median(bareTimes);
    return {
      name,
      measurements: [
        { label: 'verifyFork+compare (16 branches)', seconds: c },
        { label: 'read+node:crypto verify of the same files', seconds: b },
      ],
      ratio: c / b,
      target: { op: '<=', value: TARGET },
      ok: c / b <= TARGET,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
    rmSync(path.join(repoRoot, 'out', 'bench'), { recursive: true, force: true });
  }
}

/** RFC 8785 for the plain JSON in receipts (strings, integers, booleans, null), for the bare side only. */
function canonical(value) {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
