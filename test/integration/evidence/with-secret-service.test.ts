import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../../support/temp-dir';

const WRAPPER = fileURLToPath(new URL('../../support/with-secret-service.sh', import.meta.url));

// Prints the pids of the Secret Service provider and of the session bus, one per line.
const PRINT_SESSION_PIDS =
  'for name in org.freedesktop.secrets org.freedesktop.DBus; do ' +
  'dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus ' +
  'org.freedesktop.DBus.GetConnectionUnixProcessID "string:$name" | sed -n "s/.*uint32 //p"; done';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runWrapper(args: readonly string[], options: { env?: NodeJS.ProcessEnv; bash?: string; onSpawn?: (pid: number) => void } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.bash ?? 'bash', [WRAPPER, ...args], { env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    if (child.pid !== undefined) options.onSpawn?.(child.pid);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('test/support/with-secret-service.sh', () => {
  const tempDir = useTempDirs();

  it("exits with the wrapped command's exit code", async () => {
    expect((await runWrapper(['sh', '-c', 'exit 7'])).code).toBe(7);
    expect((await runWrapper(['true'])).code).toBe(0);
  });

  it('gives the command its own session with an unlocked Secret Service', async () => {
    const script = 'printf s3cret | secret-tool store --label=t service wrapper-test username u && secret-tool lookup service wrapper-test username u && printf "\\n%s" "$DBUS_SESSION_BUS_ADDRESS"';
    const run = await runWrapper(['sh', '-c', script]);
    expect(run.code).toBe(0);
    const [secret, address] = run.stdout.split('\n');
    expect(secret).toBe('s3cret');
    expect(address).toMatch(/^unix:/);
    expect(address).not.toBe(process.env.DBUS_SESSION_BUS_ADDRESS);
  });

  it('stops the keyring daemon and the bus when the command ends', async () => {
    const run = await runWrapper(['sh', '-c', PRINT_SESSION_PIDS]);
    expect(run.code).toBe(0);
    const pids = run.stdout.trim().split('\n').map(Number);
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(pid).toBeGreaterThan(1);
    await waitFor(() => pids.every((pid) => !alive(pid)), 5000);
  });

  it('on TERM, stops the command, the daemon and the bus', async () => {
    const pidFile = path.join(tempDir(), 'pids');
    let wrapperPid = 0;
    const running = runWrapper(['sh', '-c', `{ ${PRINT_SESSION_PIDS}; echo $$; } > ${pidFile}.tmp && mv ${pidFile}.tmp ${pidFile} && exec sleep 60`], {
      onSpawn: (pid) => (wrapperPid = pid),
    });
    await waitFor(() => existsSync(pidFile), 10_000);
    const pids = readFileSync(pidFile, 'utf8').trim().split('\n').map(Number);
    expect(pids).toHaveLength(3);
    process.kill(wrapperPid, 'SIGTERM');
    const run = await running;
    expect(run.code).toBe(143);
    await waitFor(() => pids.every((pid) => !alive(pid)), 5000);
  });

  it('fails loudly, naming the Debian packages, when the tools are missing', async () => {
    const run = await runWrapper(['true'], { bash: '/bin/bash', env: { PATH: tempDir(), HOME: process.env.HOME } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('dbus-run-session');
    expect(run.stderr).toContain('apt-get install -y --no-install-recommends dbus gnome-keyring libsecret-tools');
  });
});
