/**
 * Issue 13, items 2 and 3, through the real CLI: `.worktreeinclude` copies the operator's chosen
 * ignored files into every branch worktree (digests in contract and receipts, nothing of them in the
 * replay; an agent editing one fails POLICY_PROTECTED_PATH; a tracked file, a symlink or a path
 * outside the repository is refused before anything exists), and each running branch gets its own
 * block of ports as CITADEL_PORT. Contained (bwrap: each sandbox has its own network namespace) the
 * port is private to the branch anyway; runtime-only the blocks are what keeps two servers apart,
 * so there two branches hold a server on CITADEL_PORT at the same moment.
 */
import { existsSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256Digest } from '../../../shared/digest';
import { branch, ForkHarness, WORKFLOW } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

const SECRET = 'API_TOKEN=citadel-worktree-include-7f3a9c';
const ENV_FILE = `${SECRET}\n`;
const LOCAL_JSON = '{ "local": "only-on-this-machine-51be" }\n';

// Listens on CITADEL_PORT; with a barrier directory, stays until every name in it is there (so the
// servers of both branches are up at the same moment), then 300 ms more; appends what happened to `out`.
const SERVE = [
  "import net from 'node:net';",
  "import { appendFileSync, existsSync, writeFileSync } from 'node:fs';",
  'const [out, holdMs, barrier, ...names] = process.argv.slice(2);',
  "const record = (fact) => appendFileSync(out, JSON.stringify({ ...fact, env: process.env.CITADEL_PORT ?? null }) + '\\n');",
  'const port = Number(process.env.CITADEL_PORT);',
  "if (!Number.isInteger(port)) { record({ ok: false, error: 'no CITADEL_PORT' }); process.exit(1); }",
  'const server = net.createServer();',
  "server.once('error', (error) => { record({ ok: false, port, error: error.code }); process.exit(1); });",
  "server.listen({ host: '127.0.0.1', port, exclusive: true }, async () => {",
  '  const start = Date.now();',
  '  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));',
  "  if (barrier) { writeFileSync(`${barrier}/${names[0]}`, ''); while (!names.every((n) => existsSync(`${barrier}/${n}`)) && Date.now() - start < 30000) await sleep(50); }",
  '  await sleep(Number(holdMs));',
  '  record({ ok: true, port, start, end: Date.now() });',
  '  server.close();',
  '});',
  '',
].join('\n');

// The verifier: the copied files are there, the sum is fixed, and a test server binds CITADEL_PORT.
const CHECK = [
  "import { readFileSync } from 'node:fs';",
  "import net from 'node:net';",
  "import { sum } from '../src/sum.js';",
  "const env = readFileSync(new URL('../.env', import.meta.url), 'utf8');",
  "const local = JSON.parse(readFileSync(new URL('../config/local.json', import.meta.url), 'utf8'));",
  "if (!env.startsWith('API_TOKEN=') || typeof local.local !== 'string') { console.error('copied files missing'); process.exit(1); }",
  "if (sum(2, 3) !== 5) { console.error('sum(2, 3) is not 5'); process.exit(1); }",
  'const server = net.createServer();',
  "server.once('error', (error) => { console.error(`CITADEL_PORT ${process.env.CITADEL_PORT}: ${error.code}`); process.exit(1); });",
  "server.listen({ host: '127.0.0.1', port: Number(process.env.CITADEL_PORT), exclusive: true }, () => {",
  '  console.log(`verifier listening on ${process.env.CITADEL_PORT}`);',
  '  setTimeout(() => server.close(), 500);',
  '});',
  '',
].join('\n');

const OUTSIDE_KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nfake-key-of-issue-27-9e02\n-----END OPENSSH PRIVATE KEY-----\n';

/** The files under `dir` whose content holds `text`. */
function holding(dir: string, text: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => path.join(dir, name))
    .filter((file) => lstatSync(file).isFile() && readFileSync(file, 'utf8').includes(text));
}

const FIX = "sed -i 's/a - b/a + b/' src/sum.js";

interface Receipt {
  status: string;
  failure_code: string | null;
  verifier: { steps: { id: string; status: string }[] };
  worktree_include?: { path: string; digest: string }[];
  ports?: { first: number; count: number } | null;
  env_names: string[];
}

interface Served {
  ok: boolean;
  port?: number;
  env: string | null;
  start?: number;
  end?: number;
  error?: string;
}

/** The harness target with `.env` and `config/local.json` ignored, listed in a committed `.worktreeinclude`. */
function harness(prefix: string): ForkHarness {
  const h = new ForkHarness(tempDir(prefix));
  writeFileSync(path.join(h.repo, '.gitignore'), '.env\nconfig/local.json\n');
  writeFileSync(path.join(h.repo, '.worktreeinclude'), '# copied into every worktree\n.env\nconfig/local.json\n');
  mkdirSync(path.join(h.repo, 'config'));
  mkdirSync(path.join(h.repo, 'tools'));
  writeFileSync(path.join(h.repo, 'config', 'app.json'), '{}\n');
  writeFileSync(path.join(h.repo, 'tools', 'serve.mjs'), SERVE);
  writeFileSync(path.join(h.repo, 'test', 'check.mjs'), CHECK);
  h.gitIn(h.repo, 'add', '-A');
  h.gitIn(h.repo, 'commit', '-q', '-m', 'worktreeinclude, server, check');
  writeFileSync(path.join(h.repo, '.env'), ENV_FILE);
  writeFileSync(path.join(h.repo, 'config', 'local.json'), LOCAL_JSON);
  writeFileSync(h.workflowFile, JSON.stringify({ ...WORKFLOW, verifier: { command: 'node', args: ['test/check.mjs'], timeout_seconds: 60 } }));
  return h;
}

const receiptOf = (h: ForkHarness, forkId: string, id: string): Receipt => h.readJson<{ receipt: Receipt }>(h.attemptFile(forkId, id, 'execution-receipt.json')).receipt;

const stepsOf = (receipt: Receipt): Record<string, string> => Object.fromEntries(receipt.verifier.steps.map((s) => [s.id, s.status]));

/** What the branch's server recorded, as its result commit (delivered to the operator's repository) holds it. */
const servedIn = (h: ForkHarness, forkId: string, id: string): Served[] =>
  h.gitIn(h.repo, 'show', `citadel/${forkId}/${id}:served.jsonl`).split('\n').filter(Boolean).map((line) => JSON.parse(line) as Served);

const INCLUDED = [
  { path: '.env', digest: sha256Digest(ENV_FILE) },
  { path: 'config/local.json', digest: sha256Digest(LOCAL_JSON) },
];

function expectNoLeases(h: ForkHarness): void {
  const file = path.join(h.root, 'ports', 'leases.json');
  if (existsSync(file)) expect(h.readJson<{ leases: unknown[] }>(file).leases).toEqual([]);
}

describe('.worktreeinclude and ports', () => {
  it('contained: both branches get the copied files and a CITADEL_PORT; an edited copy fails POLICY_PROTECTED_PATH; the replay holds nothing of them', { timeout: 180_000 }, async () => {
    const h = harness('citadel-wti-');
    const serve = `'${process.execPath}' tools/serve.mjs served.jsonl 200`;
    await h.simulate({
      // Claude sees the copies and fixes the sum; Codex fixes it too but edits the copied .env.
      claude: { commands: [['sh', '-c', `grep -q '${SECRET}' .env && grep -q only-on-this-machine config/local.json && ${FIX} && ${serve}`]] },
      codex: { commands: [['sh', '-c', `grep -q '${SECRET}' .env && ${FIX} && ${serve} && echo EXTRA=1 >> .env`]] },
    });
    const { run, doc } = await h.startJson(['--runtimes', 'claude,codex', '--workflow', h.workflowFile, '--include-confirmed']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    // The operator confirmed them, and `fork start` says what it copied.
    expect(doc).toMatchObject({ worktree_include: [{ path: '.env', size_bytes: ENV_FILE.length }, { path: 'config/local.json', size_bytes: LOCAL_JSON.length }] });
    const forkId = doc.fork_id;

    const contract = h.readJson<{ worktree_include?: unknown; containment?: { mode: string } }>(path.join(h.forkDir(forkId), 'contract.json'));
    expect(contract.containment?.mode).toBe('contained');
    expect(contract.worktree_include).toEqual([
      { ...INCLUDED[0], size_bytes: Buffer.byteLength(ENV_FILE) },
      { ...INCLUDED[1], size_bytes: Buffer.byteLength(LOCAL_JSON) },
    ]);

    const claude = receiptOf(h, forkId, 'branch-claude');
    expect(claude).toMatchObject({ status: 'passed', failure_code: null, worktree_include: INCLUDED });
    expect(stepsOf(claude)).toMatchObject({ protected_paths: 'passed', workflow_verifier: 'passed' });
    expect(readFileSync(h.attemptFile(forkId, 'branch-claude', 'verifier-workflow_verifier.out'), 'utf8')).toContain(`verifier listening on ${claude.ports?.first}`);
    const codex = receiptOf(h, forkId, 'branch-codex');
    expect(codex).toMatchObject({ status: 'failed', failure_code: 'POLICY_PROTECTED_PATH', worktree_include: INCLUDED });
    expect(stepsOf(codex)).toMatchObject({ protected_paths: 'failed', workflow_verifier: 'not_run' });
    expect(branch(doc, 'branch-codex').failure_code).toBe('POLICY_PROTECTED_PATH');

    // Inside each sandbox the server bound the branch's CITADEL_PORT, the first of its receipt's block.
    for (const [id, receipt] of [['branch-claude', claude], ['branch-codex', codex]] as const) {
      expect(receipt.ports).toMatchObject({ count: 10 });
      expect(receipt.env_names).toContain('CITADEL_PORT');
      expect(servedIn(h, forkId, id)).toEqual([expect.objectContaining({ ok: true, port: receipt.ports?.first, env: String(receipt.ports?.first) })]);
    }
    expect(claude.ports?.first).not.toBe(codex.ports?.first);
    expectNoLeases(h);

    // The copies never reached a result branch; the verified worktree holds them again.
    for (const id of ['branch-claude', 'branch-codex']) {
      const files = h.gitIn(h.repo, 'ls-tree', '-r', '--name-only', `citadel/${forkId}/${id}`).split('\n');
      expect(files).not.toContain('.env');
      expect(files).not.toContain('config/local.json');
    }
    expect(readFileSync(path.join(h.worktree(forkId, 'branch-claude'), '.env'), 'utf8')).toBe(ENV_FILE);

    const replay = await h.cli(['fork', 'replay', forkId]);
    const proof = await h.cli(['fork', 'proof', forkId]);
    expect(replay.code, replay.stderr).toBe(0);
    expect(proof.code, proof.stderr).toBe(0);
    for (const absent of [SECRET, 'citadel-worktree-include', 'only-on-this-machine', '.env', 'config/local.json', 'worktree_include', INCLUDED[0]!.digest, INCLUDED[1]!.digest]) {
      expect(replay.stdout).not.toContain(absent);
      expect(proof.stdout).not.toContain(absent);
    }
  });

  it('runtime-only: two branches hold a server on CITADEL_PORT at the same moment, both succeed, and their blocks are given back', { timeout: 180_000 }, async () => {
    const h = harness('citadel-ports-');
    const barrier = path.join(h.base, 'barrier');
    mkdirSync(barrier);
    const serve = (me: string) => `'${process.execPath}' tools/serve.mjs served.jsonl 300 '${barrier}' ${me} claude codex`;
    await h.simulate({
      claude: { commands: [['sh', '-c', `${FIX} && ${serve('claude')}`]] },
      codex: { commands: [['sh', '-c', `${FIX} && ${serve('codex')}`]] },
    });
    // A lease left by a fork that is gone holds the range's first block: the first lease takes it back.
    mkdirSync(path.join(h.root, 'ports'), { recursive: true });
    const stale = { fork_id: 'fork-00000000000000000000000000', branch_id: 'branch-gone', attempt: 1, first: 20000, count: 10, leased_at: '2026-01-01T00:00:00.000Z' };
    writeFileSync(path.join(h.root, 'ports', 'leases.json'), JSON.stringify({ schema_version: 1, leases: [stale] }));
    const { run, doc } = await h.startJson(['--runtimes', 'claude,codex', '--workflow', h.workflowFile, '--containment', 'runtime-only', '--include-confirmed']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const forkId = doc.fork_id;

    const served = ['branch-claude', 'branch-codex'].map((id) => {
      const receipt = receiptOf(h, forkId, id);
      expect(receipt).toMatchObject({ status: 'passed', worktree_include: INCLUDED, ports: { count: 10 } });
      const [fact] = servedIn(h, forkId, id);
      expect(fact).toMatchObject({ ok: true, port: receipt.ports?.first });
      return fact!;
    });
    // Both listened at once (the barrier saw the other's marker while listening), on different ports.
    expect(Math.max(served[0]!.start!, served[1]!.start!)).toBeLessThan(Math.min(served[0]!.end!, served[1]!.end!));
    expect(served[0]!.port).not.toBe(served[1]!.port);
    expect(Math.abs(served[0]!.port! - served[1]!.port!)).toBeGreaterThanOrEqual(10);
    expectNoLeases(h);
  });

  it('runtime-only: an agent that gets a copied file committed (un-ignoring it) fails POLICY_PROTECTED_PATH, its content unchanged', { timeout: 120_000 }, async () => {
    const h = harness('citadel-wti-commit-');
    await h.simulate({ claude: { commands: [['sh', '-c', `${FIX} && printf '!.env\\n' >> .gitignore`]] }, codex: { commands: [['sh', '-c', FIX]] } });
    const { run, doc } = await h.startJson(['--runtimes', 'claude,codex', '--workflow', h.workflowFile, '--containment', 'runtime-only', '--include-confirmed']);
    expect(doc.error, run.stdout + run.stderr).toBeUndefined();
    const receipt = receiptOf(h, doc.fork_id, 'branch-claude');
    expect(receipt).toMatchObject({ status: 'failed', failure_code: 'POLICY_PROTECTED_PATH' });
    expect(receiptOf(h, doc.fork_id, 'branch-codex')).toMatchObject({ status: 'passed', failure_code: null });
    // Not the digest check: the copy is as it was; the result commit holds it.
    expect(h.readJson(h.attemptFile(doc.fork_id, 'branch-claude', 'worktree-include-check.json'))).toEqual({ changed: [] });
    expect(h.gitIn(h.repo, 'ls-tree', '-r', '--name-only', `citadel/${doc.fork_id}/branch-claude`).split('\n')).toContain('.env');
  });

  describe('refusals before anything exists', () => {
    it.each([
      ['a tracked file', 'WORKTREE_INCLUDE_TRACKED', (h: ForkHarness) => writeFileSync(path.join(h.repo, '.worktreeinclude'), '.env\nsrc/sum.js\n')],
      [
        'a symlink',
        'WORKTREE_INCLUDE_SYMLINK',
        (h: ForkHarness) => {
          writeFileSync(path.join(h.repo, '.gitignore'), '.env\nconfig/local.json\nlinked.env\n');
          symlinkSync('/etc/hostname', path.join(h.repo, 'linked.env'));
          writeFileSync(path.join(h.repo, '.worktreeinclude'), '.env\nlinked.env\n');
        },
      ],
      ['a path outside the repository', 'WORKTREE_INCLUDE_OUTSIDE', (h: ForkHarness) => writeFileSync(path.join(h.repo, '.worktreeinclude'), '.env\n../outside.env\n')],
      [
        // Issue 27: the listed .env is a hard link to a key outside the repository (a temp HOME's).
        'a hard link to a file outside the repository',
        'WORKTREE_INCLUDE_OUTSIDE',
        (h: ForkHarness) => {
          mkdirSync(path.join(h.base, 'home', '.ssh'), { recursive: true });
          writeFileSync(path.join(h.base, 'home', '.ssh', 'id_ed25519'), OUTSIDE_KEY);
          rmSync(path.join(h.repo, '.env'));
          linkSync(path.join(h.base, 'home', '.ssh', 'id_ed25519'), path.join(h.repo, '.env'));
        },
      ],
    ])('%s: %s, no fork, no worktree, no branch', { timeout: 60_000 }, async (_name, code, plant) => {
      const h = harness('citadel-wti-refused-');
      plant(h);
      await h.simulate({});
      const { run, doc } = await h.startJson(['--runtimes', 'claude,codex', '--workflow', h.workflowFile]);
      expect(run.code).not.toBe(0);
      expect(doc.error?.code).toBe(code);
      const forks = path.join(h.root, 'forks');
      expect(existsSync(forks) ? readdirSync(forks) : []).toEqual([]);
      expect(existsSync(path.join(h.root, 'worktrees'))).toBe(false);
      expect(existsSync(path.join(h.root, 'repositories'))).toBe(false);
      expect(h.gitIn(h.repo, 'branch', '--list', 'citadel/*')).toBe('');
      expect(holding(h.root, OUTSIDE_KEY)).toEqual([]);
    });
  });
});
