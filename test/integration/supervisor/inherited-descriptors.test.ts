/**
 * Descriptors a launcher inherited without close-on-exec (a shell's `exec 20>lock`, a CI runner's,
 * an IDE's) are passed on by Node's spawn and by bwrap: inside a sandbox they would be host files
 * reachable through /proc/self/fd. The supervisor and the clean launcher (the contained verifier's
 * start) close them; each control spawns the same probe directly and sees the descriptor.
 */
import { spawn, type StdioOptions } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { waitForExit } from '../../../main/runtimes/process-control/wait-for-exit';
import { REPO_ROOT } from '../../support/run-cli';
import { useTempDirs } from '../../support/temp-dir';
import { nodeRuntime, readText, useBundles } from './harness';

const tempDir = useTempDirs();
const bundles = useBundles();
const CLEAN_LAUNCH = path.join(REPO_ROOT, 'out', 'cli', 'sandbox-clean-launch.mjs');
const opened: number[] = [];
afterEach(() => {
  for (const fd of opened.splice(0)) closeSync(fd);
});

/** stdio for a child with `extra` as its fds 3.. and a host file as its fd 20, inherited as a shell would pass it. */
function stdioWithFd20(dir: string, extra: number[] = []): StdioOptions {
  const host = openSync(path.join(dir, 'operator-lock'), 'w');
  opened.push(host);
  const stdio: StdioOptions = ['ignore', 'pipe', 'pipe', ...extra];
  while (stdio.length < 20) stdio.push('ignore');
  stdio.push(host);
  return stdio;
}

async function output(command: string, args: string[], stdio: StdioOptions): Promise<{ stdout: string; code: number | null; signal: NodeJS.Signals | null }> {
  const child = spawn(command, args, { stdio });
  let stdout = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
  return { stdout, code, signal };
}

const LIST_FDS = ['/bin/sh', '-c', 'ls /proc/self/fd | sort -n | tr "\\n" " "'];

describe('inherited descriptors never reach a launch', () => {
  it('the clean launcher keeps 0-2 and the launch’s own fds, closes the inherited fd 20; control: a direct spawn passes fd 20 on', async () => {
    const dir = tempDir('citadel-fds-');
    const own = openSync(path.join(dir, 'seccomp.bpf'), 'w');
    opened.push(own);
    const direct = await output(LIST_FDS[0]!, LIST_FDS.slice(1), stdioWithFd20(dir, [own]));
    expect(direct.stdout.split(' ')).toContain('20');
    const clean = await output(process.execPath, [CLEAN_LAUNCH, '1', '--', ...LIST_FDS], stdioWithFd20(dir, [own]));
    expect(clean.code).toBe(0);
    const seen = clean.stdout.trim().split(' ');
    expect(seen).toContain('3');
    expect(seen).not.toContain('20');
  });

  it('the clean launcher ends as its launch ends: the same exit code, or the same signal', async () => {
    expect((await output(process.execPath, [CLEAN_LAUNCH, '0', '--', '/bin/sh', '-c', 'exit 7'], 'pipe')).code).toBe(7);
    expect((await output(process.execPath, [CLEAN_LAUNCH, '0', '--', '/bin/sh', '-c', 'kill -TERM $$'], 'pipe')).signal).toBe('SIGTERM');
    expect((await output(process.execPath, [CLEAN_LAUNCH, 'x', '--', '/bin/true'], 'pipe')).code).toBe(125);
  });

  it('the supervisor closes an fd its launcher inherited before it spawns the runtime; control: the runtime spawned directly sees it', async () => {
    const dir = tempDir('citadel-fds-');
    const listing = `import { readdirSync } from 'node:fs'; process.stdout.write(readdirSync('/proc/self/fd').join(' '));`;
    const spec = nodeRuntime(dir, listing);
    const direct = await output(spec.command, spec.args, stdioWithFd20(dir));
    expect(direct.stdout.split(' ')).toContain('20');
    const specFile = path.join(dir, 'launch-spec.json');
    writeFileSync(specFile, JSON.stringify(spec));
    const supervisor = await output(process.execPath, [bundles().supervisor, specFile], stdioWithFd20(dir));
    expect(supervisor.code).toBe(0);
    expect(await waitForExit(spec.status_file, { pollMs: 25 })).toMatchObject({ phase: 'exited', exit_code: 0 });
    expect(readText(spec.stdout_file).split(' ')).not.toContain('20');
  });
});
