// Records real vendor CLIs against the scripted model server, one case at a time, into
// test/fixtures/recordings/<runtime>/<case>/. Run it inside the loopback-only namespace:
//   bash test/support/loopback-only.sh node test/vendors/recording/record.mjs <runtime> [case ...]
// Each case gets a fresh HOME, TMPDIR and one-commit git repo, and runs under a minimal environment
// (only what the runtime needs, plus HTTP(S)_PROXY pointing at the scripted server so that any
// attempt to reach another host is logged as a refused CONNECT).
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { VENDOR_CLIS, vendorBinDir } from '../vendor-clis.mjs';
import { RUNTIMES } from './runtimes.mjs';
import { startScriptedServer } from '../scripted-model-server.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../../..');
const fixturesRoot = path.join(repoRoot, 'test/fixtures/recordings');
const LAB = process.env.RECORDING_LAB ?? '/tmp/rec-lab';
const PORT = Number(process.env.RECORDING_PORT ?? 18090);
const CASE_TIMEOUT_MS = Number(process.env.RECORDING_CASE_TIMEOUT_MS ?? 300_000);
const KILL_GRACE_MS = 10_000;
/** After a `hang` stream goes silent, the time before the cancel signal. */
const CANCEL_AFTER_MS = 2_000;
/** Request bodies above this size are kept whole only the first time they are seen in a `full` case. */
const BODY_KEEP_BYTES = 4_000;

function assertLoopbackOnly() {
  // /sys/class/net still shows the host's interfaces inside `unshare -n`; `ip` asks the namespace.
  const interfaces = spawnSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' })
    .stdout.split('\n')
    .map((line) => line.split(':')[1]?.trim())
    .filter((name) => name && name !== 'lo');
  if (interfaces.length > 0) {
    console.error(`record: network interfaces besides lo (${interfaces.join(', ')}): run me under test/support/loopback-only.sh`);
    process.exit(2);
  }
}

function shellQuote(s) {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

function git(cwd, ...args) {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8' });
  return r.stdout;
}

function freshRepo(dir) {
  mkdirSync(dir, { recursive: true });
  const run = (...args) => spawnSync('git', args, { cwd: dir, stdio: 'ignore' });
  run('init', '-q', '-b', 'main');
  writeFileSync(path.join(dir, 'README.md'), '# test repo\n');
  run('add', 'README.md');
  run('-c', 'user.email=rec@example.invalid', '-c', 'user.name=rec', 'commit', '-qm', 'init');
}

function repoAfter(dir) {
  let out = git(dir, 'status', '--porcelain', '--untracked-files=all');
  out += '--- diff\n' + git(dir, 'diff');
  out += '--- untracked files content\n';
  for (const line of git(dir, 'ls-files', '--others', '--exclude-standard').split('\n').filter(Boolean)) {
    const file = path.join(dir, line);
    const size = statSync(file).size;
    out += `== ${line}\n` + (size > 20_000 ? `<${size} bytes, not shown>\n` : readFileSync(file, 'utf8'));
  }
  return out;
}

/** Directories holding more files than this are listed as one line (a CLI unpacking itself into HOME). */
const COLLAPSE_FILES = 40;

/** Files under `dir`, relative and sorted; a directory with many files becomes one `dir/ (N files)` line. */
function listFiles(dir) {
  const lines = [];
  const count = (d) => readdirSync(d, { withFileTypes: true }).reduce((n, e) => n + (e.isDirectory() ? count(path.join(d, e.name)) : 1), 0);
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      if (!entry.isDirectory()) lines.push(`./${path.relative(dir, full)}`);
      else if (count(full) > COLLAPSE_FILES) lines.push(`./${path.relative(dir, full)}/ (${count(full)} files)`);
      else walk(full);
    }
  };
  if (existsSync(dir)) walk(dir);
  lines.sort();
  return lines.join('\n') + (lines.length ? '\n' : '');
}

/** Files under `root` whose relative path matches `pattern` (`*` = any characters but `/`). */
function matchFiles(root, pattern) {
  const re = new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*')}$`);
  const found = [];
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (re.test(path.relative(root, full))) found.push(full);
    }
  };
  if (existsSync(root)) walk(root);
  return found;
}

/** A JSONL file with every string longer than BODY_KEEP_BYTES (system prompts, mostly) replaced by a summary. */
function trimJsonl(text) {
  const trim = (value) => {
    if (typeof value === 'string' && value.length > BODY_KEEP_BYTES) return { _trimmed: true, sha256: createHash('sha256').update(value).digest('hex'), chars: value.length };
    if (Array.isArray(value)) return value.map(trim);
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, trim(v)]));
    return value;
  };
  return text
    .split('\n')
    .map((line) => {
      try {
        return line.length > BODY_KEEP_BYTES ? JSON.stringify(trim(JSON.parse(line))) : line;
      } catch {
        return line;
      }
    })
    .join('\n');
}

/** The server log, with large repeated bodies replaced by a summary (see the README). */
function trimLog(logFile, keepFullBodies) {
  if (!existsSync(logFile)) return '';
  const seen = new Map();
  const out = [];
  for (const line of readFileSync(logFile, 'utf8').split('\n').filter(Boolean)) {
    const entry = JSON.parse(line);
    if (entry.body && typeof entry.body === 'object') {
      const text = JSON.stringify(entry.body);
      const sha256 = createHash('sha256').update(text).digest('hex');
      const first = seen.get(sha256);
      if (first === undefined) seen.set(sha256, entry.n);
      if (text.length > BODY_KEEP_BYTES && (first !== undefined || !keepFullBodies)) {
        entry.body = {
          _trimmed: true,
          sha256,
          bytes: text.length,
          ...(first !== undefined ? { same_as_request: first } : {}),
          keys: Object.keys(entry.body),
          ...(typeof entry.body.model === 'string' ? { model: entry.body.model } : {}),
          ...(typeof entry.body.stream === 'boolean' ? { stream: entry.body.stream } : {}),
        };
      }
    }
    out.push(JSON.stringify(entry));
  }
  return out.join('\n') + '\n';
}

function signalGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

async function runCase(runtime, kase) {
  const cli = VENDOR_CLIS.find((c) => c.id === runtime.id);
  const binDir = vendorBinDir(cli);
  mkdirSync(LAB, { recursive: true });
  const work = mkdtempSync(path.join(LAB, `${runtime.id}-${kase.name}-`));
  const repo = path.join(work, 'repo');
  const outsideFile = path.join(work, 'outside-of-repo.txt');
  const ctx = { work, home: path.join(work, 'home'), tmp: path.join(work, 'tmp'), repo, target: kase.outside ? outsideFile : path.join(repo, 'hello.txt'), port: PORT, binDir };
  mkdirSync(ctx.home);
  mkdirSync(ctx.tmp);
  freshRepo(ctx.repo);
  runtime.prepareHome?.(ctx, kase);

  const logFile = path.join(work, 'server.jsonl');
  let child;
  let hangAt = null;
  let cancel = null;
  const started = Date.now();
  const server = await startScriptedServer(PORT, {
    scenario: kase.scenario,
    logFile,
    servedModel: kase.servedModel ?? null,
    toolCall: kase.toolCall ? kase.toolCall(ctx) : runtime.toolCall(ctx),
    toolCallMatch: kase.toolCallMatch === undefined ? (runtime.toolCallMatch ?? null) : kase.toolCallMatch,
    onHang: () => {
      if (hangAt !== null || !kase.cancelSignal) return;
      hangAt = Date.now();
      setTimeout(() => {
        cancel = { signal: kase.cancelSignal, sent_ms: Date.now() - started };
        signalGroup(child.pid, kase.cancelSignal);
      }, CANCEL_AFTER_MS);
    },
  });

  const env = {
    PATH: `${binDir}:${path.dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    HOME: ctx.home,
    TMPDIR: ctx.tmp,
    HTTPS_PROXY: `http://127.0.0.1:${PORT}`,
    HTTP_PROXY: `http://127.0.0.1:${PORT}`,
    NO_PROXY: '127.0.0.1,localhost',
    ...runtime.env(ctx, kase),
    ...(kase.env ?? {}),
  };
  for (const name of kase.dropEnv ?? []) delete env[name];
  const argv = runtime.argv(ctx, kase);
  const stdinText = kase.stdin === undefined ? runtime.stdin(kase) : kase.stdin;

  const out = path.join(fixturesRoot, runtime.id, kase.name);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const stdoutName = runtime.stdoutName ?? 'stdout.jsonl';

  const result = await new Promise((resolve) => {
    const stdout = [];
    const stderr = [];
    child = spawn(argv[0], argv.slice(1), { cwd: ctx.repo, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdout.on('data', (c) => stdout.push(c));
    child.stderr.on('data', (c) => stderr.push(c));
    child.stdin.on('error', () => {});
    if (stdinText === null) child.stdin.end();
    else child.stdin.end(stdinText);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      signalGroup(child.pid, 'SIGTERM');
      setTimeout(() => signalGroup(child.pid, 'SIGKILL'), KILL_GRACE_MS);
    }, CASE_TIMEOUT_MS);
    let killTimer = null;
    child.on('exit', () => {
      // A signal to the group may leave grandchildren; the KILL after the grace ends them too.
      if (cancel) killTimer = setTimeout(() => signalGroup(child.pid, 'SIGKILL'), 100);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      resolve({ code, signal, timedOut, stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr), ms: Date.now() - started });
    });
    child.on('error', (error) => resolve({ code: null, signal: null, timedOut, stdout: Buffer.alloc(0), stderr: Buffer.from(String(error)), ms: Date.now() - started }));
  });
  // Whatever a cancel left behind in the group is ended before the next case.
  signalGroup(child.pid, 'SIGKILL');
  server.closeAll();

  const extras = runtime.afterRun ? await runtime.afterRun(ctx, kase, { env, stdout: result.stdout.toString('utf8'), out }) : [];
  // The runtime's own session and usage files (model identity and usage outside stdout), under home/.
  for (const pattern of runtime.keepFromHome ?? []) {
    for (const file of matchFiles(ctx.home, pattern)) {
      const dest = path.join(out, 'home', path.relative(ctx.home, file));
      mkdirSync(path.dirname(dest), { recursive: true });
      if (file.endsWith('.jsonl')) writeFileSync(dest, trimJsonl(readFileSync(file, 'utf8')));
      else copyFileSync(file, dest);
    }
  }

  writeFileSync(path.join(out, stdoutName), result.stdout);
  writeFileSync(path.join(out, 'stderr.txt'), result.stderr);
  writeFileSync(path.join(out, 'exit_code.txt'), `${result.code ?? `signal ${result.signal}`}\n`);
  writeFileSync(path.join(out, 'requests.jsonl'), trimLog(logFile, kase.full === true));
  writeFileSync(path.join(out, 'repo_after.txt'), repoAfter(ctx.repo));
  writeFileSync(path.join(out, 'home_files.txt'), listFiles(ctx.home));
  writeFileSync(path.join(out, 'tmpdir_files.txt'), listFiles(ctx.tmp));
  const envLine = Object.entries(env).map(([k, v]) => `${k}=${shellQuote(v)}`).join(' ');
  const lines = [
    `env -i ${envLine} ${argv.map(shellQuote).join(' ')}`,
    `stdin: ${stdinText === null ? '<none, closed>' : stdinText}`,
    `cwd: ${ctx.repo}`,
    `scripted server: 127.0.0.1:${PORT} scenario=${kase.scenario}${kase.servedModel ? ` served_model=${kase.servedModel}` : ''}`,
    `case: ${kase.difference}`,
    ...(cancel ? [`cancel: ${cancel.signal} to the process group at +${(cancel.sent_ms / 1000).toFixed(3)} s (the stream had gone silent ${CANCEL_AFTER_MS} ms before); exited at +${(result.ms / 1000).toFixed(3)} s`] : []),
    ...(kase.cancelSignal && !cancel ? ['cancel: the stream never went silent, so no signal was sent'] : []),
    ...(result.timedOut ? [`timed out: the recorder sent SIGTERM to the group after ${CASE_TIMEOUT_MS / 1000} s (SIGKILL ${KILL_GRACE_MS / 1000} s later)`] : []),
    ...extras,
    ...(kase.probe ? [`probe file ${path.join(work, kase.probe)}: ${existsSync(path.join(work, kase.probe)) ? 'EXISTS' : 'absent'}`] : []),
    ...(kase.outside ? [`outside-of-repo file ${outsideFile}: ${existsSync(outsideFile) ? `WRITTEN (${JSON.stringify(readFileSync(outsideFile, 'utf8'))})` : 'not written'}`] : []),
    `wall_s: ${(result.ms / 1000).toFixed(3)}`,
  ];
  writeFileSync(path.join(out, 'cmd.txt'), lines.join('\n') + '\n');
  console.log(`${runtime.id}/${kase.name}: exit ${result.code ?? result.signal}${result.timedOut ? ' (timed out)' : ''} in ${(result.ms / 1000).toFixed(1)} s; work ${work}`);
}

assertLoopbackOnly();
const [runtimeId, ...caseNames] = process.argv.slice(2);
const runtime = RUNTIMES[runtimeId];
if (!runtime) {
  console.error(`usage: record.mjs <${Object.keys(RUNTIMES).join('|')}> [case ...]`);
  process.exit(2);
}
const unknown = caseNames.filter((name) => !runtime.cases.some((c) => c.name === name));
if (unknown.length > 0) {
  console.error(`record: ${runtimeId} has no case ${unknown.join(', ')} (cases: ${runtime.cases.map((c) => c.name).join(', ')})`);
  process.exit(2);
}
for (const kase of runtime.cases) {
  if (caseNames.length === 0 || caseNames.includes(kase.name)) await runCase(runtime, kase);
}
