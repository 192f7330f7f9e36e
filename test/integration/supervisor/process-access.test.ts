import { realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { launchSupervised } from '../../../main/runtimes/process-control/launch-supervised';
import { waitForExit } from '../../../main/runtimes/process-control/wait-for-exit';
import { bubblewrapBackend } from '../../../main/sandbox/bubblewrap';
import type { SandboxLauncher } from '../../../main/sandbox/sandbox-backend';
import { sandboxFilterProgram, seccompArchOf } from '../../../main/sandbox/seccomp/sandbox-filter';
import { REPO_ROOT } from '../../support/run-cli';
import { useTempDirs } from '../../support/temp-dir';
import { containedRuntime, readText, useBundles, useRunCleanup } from './harness';

// Issue 27: a tool run by a contained runtime took the runtime's stdout (pidfd_open + pidfd_getfd on
// its parent) and wrote a whole forged result into it. Real bubblewrap, the real supervisor and its
// capture; the runtime is a Python stand-in that runs the probe as its tool (fixtures/parent-access-probe.py).

const FIXTURES = path.join(REPO_ROOT, 'test/integration/supervisor/fixtures');
const PROBE = path.join(FIXTURES, 'parent-access-probe.py');
/** Debian's interpreter, under /usr, which every sandbox binds (a pyenv shim may come first on PATH). */
const PYTHON = '/usr/bin/python3';
const FORGED = '{"type":"result","forged_by":"tool"}';
const POLL = { pollMs: 25 };

const tempDir = useTempDirs();
const bundles = useBundles();
const track = useRunCleanup();

interface ProbeRun {
  /** The runtime's stdout as the supervisor captured it, by line. */
  readonly stdout: string[];
  /** The tool's outcomes, and the runtime's two buffers after the tool ran. */
  readonly report: { tool: Record<string, string>; vm: string; mem: string };
}

let launcher: SandboxLauncher;
beforeAll(async () => {
  launcher = await bubblewrapBackend.probe(process.env);
});

/** The stand-in runtime, contained and supervised; `program` replaces the launch's seccomp program (the control). */
async function supervisedProbe(program?: Uint8Array): Promise<ProbeRun> {
  const dir = realpathSync(tempDir('citadel-process-access-'));
  const { spec } = await containedRuntime(launcher, dir, { command: PYTHON, args: [PROBE] }, [FIXTURES]);
  const [programFile] = spec.extra_fd_files ?? [];
  if (program !== undefined && programFile !== undefined) writeFileSync(programFile, program);
  track(await launchSupervised(spec, bundles().supervisor));
  const exited = await waitForExit(spec.status_file, POLL);
  expect(exited, readText(spec.stderr_file)).toMatchObject({ phase: 'exited', exit_code: 0 });
  const stdout = readText(spec.stdout_file).trim().split('\n');
  return { stdout, report: JSON.parse(stdout.at(-1) ?? '') as ProbeRun['report'] };
}

const DENIED = { ptrace_attach: 'EPERM', ptrace_seize: 'EPERM', pidfd_open: 'EPERM', pidfd_getfd: 'EPERM', process_vm_readv: 'EPERM', process_vm_writev: 'EPERM', kcmp: 'EPERM' };

describe.skipIf(process.platform !== 'linux')('a tool cannot reach into the runtime that ran it (real bwrap, the sandbox seccomp filter)', () => {
  it('ptrace (attach, seize), pidfd_open, pidfd_getfd on its fd 1, process_vm_readv/writev and kcmp fail with EPERM; the capture holds only the runtime’s own result', async () => {
    const { stdout, report } = await supervisedProbe();
    expect(report.tool).toMatchObject(DENIED);
    expect(stdout).toHaveLength(1);
    expect(stdout.join('\n')).not.toContain('forged_by');
    expect(report.vm).toBe('runtime-vm');
  });

  it('control: under the filter without the new denials (keyring only, as before issue 27) the same tool forges the result and reads and writes the runtime’s memory', async () => {
    const arch = seccompArchOf(process.arch);
    if (arch === null) throw new Error(`no seccomp table for ${process.arch}`);
    const { stdout, report } = await supervisedProbe(sandboxFilterProgram(arch, ['add_key', 'request_key', 'keyctl']));
    expect(report.tool).toMatchObject({ ptrace_attach: 'ok', ptrace_seize: 'ok', pidfd_open: 'ok', pidfd_getfd: 'ok', process_vm_readv: 'runtime-vm', process_vm_writev: 'ok' });
    expect(report.tool['kcmp']).toMatch(/^ok:/);
    // The tool's bytes, written through the runtime's own stdout, are in the supervisor's capture.
    expect(stdout[0]).toBe(FORGED);
    expect(report.vm).toBe('vm-forged');
  });

  it('the routes through /proc that seccomp cannot see: fd 1 cannot be reopened (a socket: ENXIO); /proc/<ppid>/mem CAN be written (a residual hole)', async () => {
    const { stdout, report } = await supervisedProbe();
    // The runtime's stdout is the supervisor's socketpair, which open() through /proc refuses.
    expect(report.tool['parent_fd1']).toMatch(/^socket:\[\d+\]$/);
    expect(report.tool['proc_fd_write']).toBe('ENXIO');
    // Not a syscall the filter can tell apart (open + write): same uid, a dumpable runtime and no
    // Yama let a tool write its parent's memory. Recorded as it is, not hidden (issue 27).
    expect(report.tool['proc_mem_write']).toBe('ok');
    expect(report.mem).toBe('mem-forged');
    expect(stdout).toHaveLength(1);
  });
});
