/**
 * The text of `probe.mjs`, committed into the target repository of a containment test: the test's
 * `claude`/`codex` executables import it from their worktree (role `runtime`), and the workflow
 * verifier runs it (`node probe.mjs verifier`). Each probe tries one thing containment must deny
 * and records what it saw: `ok`, or the error code. The runtime writes its record into its worktree
 * (`probe-runtime.json`); the verifier prints its record on stdout. Every path comes from
 * `probe-config.json` beside it, or from the worktree's own place in the fork root.
 */
export const PROBE_SCRIPT = String.raw`
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

const role = process.argv[2] ?? 'runtime';
const config = JSON.parse(fs.readFileSync(new URL('./probe-config.json', import.meta.url), 'utf8'));
const cwd = process.cwd();
const branch = path.basename(cwd);
const forkId = path.basename(path.dirname(cwd));
const forkDir = path.join(config.root, 'forks', forkId);
const tag = config.token + '-' + role + '-' + branch;
const skip = new Set(config.skip[role] ?? []);

const attempt = (fn) => {
  try {
    const value = fn();
    return value === undefined ? 'ok' : value;
  } catch (error) {
    return error.code ?? String(error.message ?? error);
  }
};
const read = (file) => attempt(() => void fs.readFileSync(file));
const write = (file) => attempt(() => void fs.appendFileSync(file, '# ' + tag + '\n'));

const connect = (address) =>
  new Promise((resolve) => {
    const socket = net.connect({ path: address });
    const done = (result) => { socket.destroy(); resolve(result); };
    socket.once('connect', () => done('ok'));
    socket.once('error', (error) => done(error.code ?? 'error'));
    setTimeout(() => done('timeout'), 2000).unref();
  });

// Where the runtime's own settings point (the vendor CLI reads its credential there).
const seedFile = () => (process.env.CODEX_HOME ? path.join(process.env.CODEX_HOME, 'auth.json') : path.join(process.env.CLAUDE_CONFIG_DIR ?? '', '.credentials.json'));

const probes = {
  read_sibling_worktree: () => read(path.join(path.dirname(cwd), config.sibling[branch], 'package.json')),
  read_parent_untracked: () => read(path.join(config.repo, '.env')),
  read_objective: () => read(path.join(forkDir, 'objective.txt')),
  read_journal: () => read(path.join(forkDir, 'journal.jsonl')),
  read_key_store: () => attempt(() => {
    const keys = fs.readdirSync(path.join(config.root, 'keys')).filter((name) => name.endsWith('.key'));
    if (keys.length === 0) return 'no_key_file';
    fs.readFileSync(path.join(config.root, 'keys', keys[0]));
  }),
  dbus_socket: () => connect(config.dbus),
  loopback_port: () => new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port: config.loopbackPort });
    const done = (result) => { socket.destroy(); resolve(result); };
    socket.once('connect', () => done('ok'));
    socket.once('error', (error) => done(error.code ?? 'error'));
    setTimeout(() => done('timeout'), 2000).unref();
  }),
  // The kernel keyrings are not namespaced: without the sandbox's seccomp filter the session keyring is the operator's.
  read_session_keyring: () => attempt(() => {
    const run = spawnSync('keyctl', ['rdescribe', '@s'], { encoding: 'utf8' });
    if (run.error) throw run.error;
    if (run.status !== 0) return /Operation not permitted/.test(run.stderr) ? 'EPERM' : 'keyctl: ' + run.stderr.trim();
  }),
  dbus_via_proc_environ: () => attempt(() => (fs.readFileSync('/proc/' + config.testPid + '/environ', 'utf8').includes('DBUS_SESSION_BUS_ADDRESS=') ? undefined : 'no_dbus_in_environ')),
  write_host_tmp: () => write(path.join(config.hostTmp, tag)),
  write_parent_repository: () => write(path.join(config.repo, 'planted-' + role + '-' + branch + '.txt')),
  write_parent_git_config: () => write(path.join(config.repo, '.git', 'config')),
  write_sibling_worktree: () => write(path.join(path.dirname(cwd), config.sibling[branch], 'planted-by-' + role + '-' + branch + '.txt')),
  write_own_git_metadata: () => write(path.join(config.root, 'repositories', forkId, branch + '.git', 'config')),
  // The operator's credential file, seeded into the runtime home read-only (never copied).
  seed_read: () => attempt(() => (fs.readFileSync(seedFile(), 'utf8').startsWith('operator-credential') ? undefined : 'not_the_credential')),
  seed_write: () => write(seedFile()),
  write_own_worktree: () => write(path.join(cwd, 'written-by-' + role + '.txt')),
  // A process in a session of its own, as 'setsid' makes it: it must not outlive the branch.
  leave_process: () => attempt(() => {
    spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', tag], { detached: true, stdio: 'ignore' }).unref();
  }),
};

const seen = {};
for (const [name, probe] of Object.entries(probes)) if (!skip.has(name)) seen[name] = await probe();
if (role === 'runtime') fs.writeFileSync(path.join(cwd, 'probe-runtime.json'), JSON.stringify(seen, null, 2) + '\n');
else process.stdout.write(JSON.stringify(seen) + '\n');
if (config.hang.includes(role + ':' + branch) || (role === 'runtime' && config.hang.includes(branch))) setInterval(() => {}, 1000);
`;

/** A runtime executable (`claude` or `codex`) that runs the worktree's probe as the runtime. */
export const PROBE_RUNTIME = [
  '#!/usr/bin/env node',
  // The vendor's own arguments are not the probe's: it runs as the runtime.
  "process.argv.splice(2, process.argv.length, 'runtime');",
  "import('node:path').then((p) => import(p.join(process.cwd(), 'probe.mjs')));",
  '',
].join('\n');
