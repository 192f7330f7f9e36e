import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readlinkSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { launchSupervised } from '../../../main/runtimes/process-control/launch-supervised';
import { waitForExit } from '../../../main/runtimes/process-control/wait-for-exit';
import type { LaunchSpec } from '../../../main/runtimes/supervisor/launch-spec';
import type { ExitedStatus, RunStatus } from '../../../main/runtimes/supervisor/run-status';
import { bubblewrapBackend } from '../../../main/sandbox/bubblewrap';
import type { SandboxLauncher } from '../../../main/sandbox/sandbox-backend';
import { useTempDirs } from '../../support/temp-dir';
import { containedRuntime, hasEnded, nodeRuntime, readText, useBundles, useRunCleanup, waitUntil } from './harness';

const tempDir = useTempDirs();
const bundles = useBundles();
const track = useRunCleanup();
const POLL = { pollMs: 25 };
const MiB = 1024 * 1024;
const SHELL_ENV = { PATH: '/usr/bin:/bin' };

async function runToExit(spec: LaunchSpec): Promise<ExitedStatus> {
  track(await launchSupervised(spec, bundles().supervisor));
  const exited = await waitForExit(spec.status_file, POLL);
  if (exited.phase !== 'exited') throw new Error(`expected an exited record, got ${JSON.stringify(exited)}`);
  return exited;
}

function expectRunning(status: RunStatus): Extract<RunStatus, { phase: 'running' }> {
  if (status.phase !== 'running') throw new Error(`expected a running record, got ${JSON.stringify(status)}`);
  return status;
}

/** The largest resident set the process has had, in bytes (VmHWM). */
function peakResidentBytes(pid: number): number {
  const line = readText(`/proc/${pid}/status`)
    .split('\n')
    .find((l) => l.startsWith('VmHWM:'));
  if (line === undefined) throw new Error(`no VmHWM for ${pid}`);
  return Number(/(\d+)\s*kB/.exec(line)?.[1]) * 1024;
}

describe('a supervised runtime writes into pipes, and the supervisor keeps at most the cap of each', () => {
  it('a 2 GiB flood with a 1 MiB cap: each log is exactly the cap, the rest counted, the supervisor stays small', async () => {
    const dir = tempDir();
    const flooded = path.join(dir, 'flooded');
    const go = path.join(dir, 'go');
    const script = `head -c ${2048 * MiB} /dev/zero; head -c ${3 * MiB} /dev/zero >&2; : > "$1"; while [ ! -e "$2" ]; do sleep 0.05; done`;
    const spec = nodeRuntime(dir, '', { overrides: { command: '/bin/sh', args: ['-c', script, 'sh', flooded, go], env: SHELL_ENV, output_cap_bytes: MiB } });
    const running = expectRunning(track(await launchSupervised(spec, bundles().supervisor)));
    await waitUntil('the runtime has written its flood', () => existsSync(flooded), 120_000);
    // Read while the supervisor still runs: its peak over the whole flood.
    const peak = peakResidentBytes(running.supervisor_pid);
    writeFileSync(go, '');

    const exited = await waitForExit(spec.status_file, POLL);
    expect(exited).toMatchObject({ phase: 'exited', exit_code: 0 });
    expect(statSync(spec.stdout_file).size).toBe(MiB);
    expect(statSync(spec.stderr_file).size).toBe(MiB);
    expect((exited as ExitedStatus).output).toEqual({
      cap_bytes: MiB,
      stdout: { received_bytes: 2048 * MiB, dropped_bytes: 2047 * MiB },
      stderr: { received_bytes: 3 * MiB, dropped_bytes: 2 * MiB },
    });
    expect(statSync(spec.stdout_file).mode & 0o777).toBe(0o600);
    expect(peak).toBeLessThan(150 * 1000 * 1000);
  }, 180_000);

  it('keeps everything under the cap, in order, flushed before the exited record', async () => {
    const dir = tempDir();
    // Many small writes on both streams, interleaved, with no pause before the exit.
    const spec = nodeRuntime(
      dir,
      `import { writeSync } from 'node:fs';
       for (let i = 0; i < 50000; i++) { writeSync(1, 'out ' + i + '\\n'); if (i % 7 === 0) writeSync(2, 'err ' + i + '\\n'); }`,
    );
    const exited = await runToExit(spec);
    const lines = Array.from({ length: 50000 }, (_, i) => `out ${i}\n`).join('');
    const errors = Array.from({ length: 50000 }, (_, i) => i)
      .filter((i) => i % 7 === 0)
      .map((i) => `err ${i}\n`)
      .join('');
    expect(readText(spec.stdout_file)).toBe(lines);
    expect(readText(spec.stderr_file)).toBe(errors);
    expect(exited.output).toEqual({
      cap_bytes: 64 * MiB,
      stdout: { received_bytes: Buffer.byteLength(lines), dropped_bytes: 0 },
      stderr: { received_bytes: Buffer.byteLength(errors), dropped_bytes: 0 },
    });
  });

  it('closes the pipes of a writer that escaped the group shortly after the group is gone: the log ends with the record', async () => {
    const dir = tempDir();
    const pidFile = path.join(dir, 'escaped.pid');
    // setsid leaves the runtime's process group; the ticker keeps the stdout pipe open and busy.
    const script = `setsid sh -c 'while :; do echo tick; sleep 0.05; done' & echo $! > "$1"; sleep 0.3`;
    const spec = nodeRuntime(dir, '', { overrides: { command: '/bin/sh', args: ['-c', script, 'sh', pidFile], env: SHELL_ENV } });
    try {
      const exited = await runToExit(spec);
      expect(exited).toMatchObject({ exit_code: 0 });
      const logged = readText(spec.stdout_file);
      expect(logged).toMatch(/^(tick\n)+$/);
      await waitUntil('the escaped writer ends on its next write', () => hasEnded(Number(readText(pidFile))), 5_000);
      expect(readText(spec.stdout_file)).toBe(logged);
    } finally {
      const escaped = Number(readText(pidFile));
      if (escaped > 0 && !hasEnded(escaped)) process.kill(escaped, 'SIGKILL');
    }
  });

  it('feeds the whole stdin file, however large, and ends it', async () => {
    const dir = tempDir();
    const stdin = Buffer.alloc(5 * MiB, 'instruction line\n');
    const spec = nodeRuntime(
      dir,
      `import { createHash } from 'node:crypto';
       const hash = createHash('sha256'); let n = 0;
       process.stdin.on('data', (d) => { hash.update(d); n += d.length; }).on('end', () => console.log(n + ' ' + hash.digest('hex')));`,
      { stdin: stdin.toString('utf8') },
    );
    expect(await runToExit(spec)).toMatchObject({ exit_code: 0 });
    expect(readText(spec.stdout_file)).toBe(`${stdin.length} ${createHash('sha256').update(stdin).digest('hex')}\n`);
  });
});

/**
 * Tries to rewrite what its stdin and stdout point at by reopening them through /proc for writing
 * (O_TRUNC), after one ordinary line on stdout; reports each outcome into the file named by its argument.
 */
const REOPEN_PROBE = `
import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
writeSync(1, 'before\\n');
const outcome = {};
for (const fd of [0, 1]) {
  try {
    const reopened = openSync('/proc/self/fd/' + fd, 'w');
    writeSync(reopened, 'forged\\n');
    closeSync(reopened);
    outcome[fd] = 'rewrote';
  } catch (error) {
    outcome[fd] = error.code;
  }
}
writeFileSync(process.argv[2], JSON.stringify(outcome));
`;

describe('a runtime cannot reach the instruction or its logs through its stdio', () => {
  it('control: given host file descriptors, the probe rewrites both files', async () => {
    const dir = tempDir();
    const report = path.join(dir, 'report.json');
    const spec = nodeRuntime(dir, REOPEN_PROBE, { scriptArgs: [report], stdin: 'the instruction\n' });
    writeFileSync(spec.stdout_file, 'earlier\n');
    // What the supervisor used to do: the files' own descriptors as the child's stdio.
    const fds = [openSync(spec.stdin_file, 'r'), openSync(spec.stdout_file, 'a'), openSync(spec.stderr_file, 'a')];
    const child = spawn(spec.command, spec.args, { stdio: fds, env: {} });
    fds.forEach((fd) => closeSync(fd));
    expect(await once(child, 'exit')).toEqual([0, null]);
    expect(JSON.parse(readText(report))).toEqual({ 0: 'rewrote', 1: 'rewrote' });
    expect(readText(spec.stdin_file)).toBe('forged\n');
    expect(readText(spec.stdout_file)).toBe('forged\n');
  });

  it('supervised: the probe rewrites neither; its ordinary output is appended', async () => {
    const dir = tempDir();
    const report = path.join(dir, 'report.json');
    const spec = nodeRuntime(dir, REOPEN_PROBE, { scriptArgs: [report], stdin: 'the instruction\n' });
    writeFileSync(spec.stdout_file, 'earlier\n');
    expect(await runToExit(spec)).toMatchObject({ exit_code: 0 });
    const outcome = JSON.parse(readText(report)) as Record<string, string>;
    expect(outcome['0']).not.toBe('rewrote');
    expect(outcome['1']).not.toBe('rewrote');
    expect(readText(spec.stdin_file)).toBe('the instruction\n');
    expect(readText(spec.stdout_file)).toBe('earlier\nbefore\n');
  });

  describe.skipIf(process.platform !== 'linux')('contained by real bubblewrap', () => {
    let launcher: SandboxLauncher;
    beforeAll(async () => {
      launcher = await bubblewrapBackend.probe(process.env);
    });

    it('the probe in the sandbox rewrites neither the instruction nor the log', async () => {
      const dir = realpathSync(tempDir('citadel-contained-stdio-'));
      const probeDir = path.join(dir, 'probe');
      mkdirSync(probeDir);
      const probe = path.join(probeDir, 'probe.mjs');
      writeFileSync(probe, REOPEN_PROBE);
      const node = realpathSync(process.execPath);
      const report = path.join(dir, 'work', 'report.json');
      const { spec } = await containedRuntime(launcher, dir, { command: node, args: [probe, report] }, [probeDir, path.dirname(node)], 'the instruction\n');
      writeFileSync(spec.stdout_file, 'earlier\n');

      const exited = await runToExit(spec);
      expect(exited, readText(spec.stderr_file)).toMatchObject({ exit_code: 0 });
      const outcome = JSON.parse(readText(report)) as Record<string, string>;
      expect(outcome['0']).not.toBe('rewrote');
      expect(outcome['1']).not.toBe('rewrote');
      expect(readText(spec.stdin_file)).toBe('the instruction\n');
      expect(readText(spec.stdout_file)).toBe('earlier\nbefore\n');
    });
  });
});

describe('extra_fd_files', () => {
  it('are the runtime fds 3, 4, read-only, and the supervisor keeps no copy', async () => {
    const dir = tempDir();
    const first = path.join(dir, 'first.bin');
    const second = path.join(dir, 'second.bin');
    writeFileSync(first, 'first file');
    writeFileSync(second, 'second file');
    const go = path.join(dir, 'go');
    const spec = nodeRuntime(
      dir,
      `import { existsSync, readFileSync, writeSync } from 'node:fs';
       const timer = setInterval(() => {
         if (!existsSync(process.argv[2])) return;
         clearInterval(timer);
         let write = 'wrote';
         try { writeSync(3, 'x'); } catch (error) { write = error.code; }
         console.log(JSON.stringify({ fd3: readFileSync(3, 'utf8'), fd4: readFileSync(4, 'utf8'), write }));
       }, 20);`,
      { scriptArgs: [go], overrides: { extra_fd_files: [first, second] } },
    );
    const running = expectRunning(track(await launchSupervised(spec, bundles().supervisor)));
    const supervisorFiles = readdirSync(`/proc/${running.supervisor_pid}/fd`).map((fd) => {
      try {
        return readlinkSync(`/proc/${running.supervisor_pid}/fd/${fd}`);
      } catch {
        return '';
      }
    });
    expect(supervisorFiles).not.toContain(first);
    expect(supervisorFiles).not.toContain(second);
    // Control for the check above: the runtime does hold them.
    expect(readlinkSync(`/proc/${running.runtime_pid}/fd/3`)).toBe(first);
    writeFileSync(go, '');

    expect(await waitForExit(spec.status_file, POLL)).toMatchObject({ phase: 'exited', exit_code: 0 });
    expect(JSON.parse(readText(spec.stdout_file))).toEqual({ fd3: 'first file', fd4: 'second file', write: 'EBADF' });
  });

  it('one that cannot be opened spawns nothing', async () => {
    const dir = tempDir();
    const spec = nodeRuntime(dir, 'console.log("ran")', { overrides: { extra_fd_files: [path.join(dir, 'missing.bin')] } });
    expect(await launchSupervised(spec, bundles().supervisor)).toMatchObject({ phase: 'exited', runtime_pid: null, spawn_error: 'ENOENT', output: null });
    expect(readText(spec.stdout_file)).toBe('');
  });
});
