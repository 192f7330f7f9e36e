// Issue 15: `citadel verify` of a 16-branch attestation bundle (17 DSSE envelopes), as a ratio to
// the bare cost of node:crypto verifying the same PAE bytes: parse each line, decode its payload,
// build the PAE, verify. Target: at most 2.
//
// Both sides run in this process, interleaved, on the bundle text already in memory (reading the
// file is the same for both). The Citadel side is the real `verifyBundle` (shapes, keyid, signature,
// statement schemas, bundle consistency), bundled on the fly with esbuild.

import { spawnSync, execFileSync } from 'node:child_process';
import { createPublicKey, verify } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

export const name = 'attest-verify-16-branches-vs-bare-verify';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLI = path.join(repoRoot, 'out', 'cli', 'citadel.mjs');
const SIMULATOR = path.join(repoRoot, 'out', 'cli', 'simulated-runtime.mjs');
const TARGET = 2;
// Each sample is a batch, so the seconds printed are not all 0.00.
const BATCH = 100;
const ROUNDS = 15;

const PROFILES = Array.from({ length: 16 }, (_, i) => {
  const runtime = i % 2 === 0 ? 'claude' : 'codex';
  return { profile_id: `${runtime}-${String(i).padStart(2, '0')}`, runtime, model: runtime === 'claude' ? 'claude-sonnet-4-5' : 'gpt-5.1-codex', local_provider: null, adapter_options: {} };
});

export async function run({ log = (line) => process.stderr.write(`${line}\n`) } = {}) {
  const work = mkdtempSync(path.join(tmpdir(), 'citadel-bench-attest-'));
  const entryBundle = path.join(repoRoot, 'out', 'bench', `attest-verify-${process.pid}.mjs`);
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
    const cli = (...args) => {
      const result = spawnSync(process.execPath, [CLI, ...args], { env: { ...env, PATH: `${bin}${path.delimiter}${process.env.PATH}` }, encoding: 'utf8' });
      if (result.status !== 0) throw new Error(`citadel ${args.join(' ')} failed: ${result.stdout}${result.stderr}`);
      return result.stdout;
    };
    const started = JSON.parse(cli('fork', 'start', 'bench', '--executors', path.join(work, 'executors.json'), '--repo', repo, '--json'));
    const forkId = started.fork_id;
    const unfinished = started.branches.filter((b) => b.state !== 'passed');
    if (unfinished.length > 0) throw new Error(`branches did not pass: ${unfinished.map((b) => `${b.branch_id} ${b.state} ${b.failure_code ?? ''}`).join(', ')}`);
    const text = cli('fork', 'attest', forkId);
    const pem = JSON.parse(cli('keys', 'export', '--json')).public_key_pem;

    const entry = path.join(work, 'entry.ts');
    writeFileSync(entry, `export { verifyBundle } from ${JSON.stringify(path.join(repoRoot, 'main/evidence/attestation/verify-bundle.ts'))};\n`);
    // Inside the repository, so the bundle's external packages resolve from its node_modules.
    await build({ entryPoints: [entry], outfile: entryBundle, bundle: true, platform: 'node', format: 'esm', packages: 'external', absWorkingDir: repoRoot, nodePaths: [path.join(repoRoot, 'node_modules')], logLevel: 'error' });
    const { verifyBundle } = await import(pathToFileURL(entryBundle).href);

    const citadel = () => {
      const report = verifyBundle({ bundle: text, publicKeyPem: pem, proof: null, replay: null });
      if (!report.verified || report.envelopes.length !== 17) throw new Error(`the bundle did not verify as 17 envelopes: ${report.envelopes.length}, ${JSON.stringify(report.failure)}`);
    };
    const bare = () => {
      const key = createPublicKey(pem);
      for (const line of text.split('\n')) {
        if (line === '') continue;
        const envelope = JSON.parse(line);
        const payload = Buffer.from(envelope.payload, 'base64');
        const type = Buffer.from(envelope.payloadType);
        const pae = Buffer.concat([Buffer.from(`DSSEv1 ${type.length} `), type, Buffer.from(` ${payload.length} `), payload]);
        if (!verify(null, pae, key, Buffer.from(envelope.signatures[0].sig, 'base64'))) throw new Error('bare verify failed');
      }
    };
    for (let i = 0; i < 20; i++) {
      citadel();
      bare();
    }
    const citadelTimes = [];
    const bareTimes = [];
    const timed = (fn) => {
      const t = process.hrtime.bigint();
      for (let i = 0; i < BATCH; i++) fn();
      return Number(process.hrtime.bigint() - t) / 1e9;
    };
    for (let i = 0; i < ROUNDS; i++) {
      citadelTimes.push(timed(citadel));
      bareTimes.push(timed(bare));
    }
    const c = median(citadelTimes);
    const b = median(bareTimes);
    return {
      name,
      measurements: [
        { label: `citadel verify of 17 envelopes x${BATCH}`, seconds: c },
        { label: `node:crypto verify of the same PAE bytes x${BATCH}`, seconds: b },
      ],
      ratio: c / b,
      target: { op: '<=', value: TARGET },
      ok: c / b <= TARGET,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
    rmSync(entryBundle, { force: true });
  }
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
