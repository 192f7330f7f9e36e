import { execFile } from 'node:child_process';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { isCitadelError } from '../../shared/errors';
import { resolveExecutable } from '../runtimes/resolve-executable';

/**
 * The runtime supervisor is a detached plain-Node process that must outlive the app (decisions
 * D11). Inside Electron `process.execPath` is the app binary, and packaged builds fuse
 * `runAsNode` off, so it cannot run the supervisor; a `utilityProcess` dies with the app. The app
 * therefore runs the supervisor with a real Node >= 20: `CITADEL_NODE` when set, else `node` on PATH.
 */
export const MIN_NODE_MAJOR = 20;
const VERSION_TIMEOUT_MS = 5000;

export type SupervisorNode = { ok: true; execPath: string; version: string } | { ok: false; problem: string };

export interface SupervisorNodeOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The running app's own binary, which must never be picked (it would open a second app). */
  readonly appExecPath: string;
  readonly platform?: NodeJS.Platform;
}

export async function resolveSupervisorNode(options: SupervisorNodeOptions): Promise<SupervisorNode> {
  const configured = options.env.CITADEL_NODE;
  let candidate: string;
  if (configured !== undefined && configured !== '') {
    if (!path.isAbsolute(configured)) return { ok: false, problem: `CITADEL_NODE must be an absolute path, got "${configured}"` };
    candidate = configured;
  } else {
    try {
      const platformOption = options.platform === undefined ? {} : { platform: options.platform };
      candidate = (await resolveExecutable('node', { name: 'node', bin: 'node' }, { env: options.env, ...platformOption })).command;
    } catch (error) {
      if (!isCitadelError(error)) throw error;
      return { ok: false, problem: 'no "node" on PATH and CITADEL_NODE is not set' };
    }
  }
  const [real, self] = await Promise.all([realpath(candidate).catch(() => null), realpath(options.appExecPath).catch(() => options.appExecPath)]);
  if (real === null) return { ok: false, problem: `${candidate} does not exist` };
  if (real === self) return { ok: false, problem: `${candidate} is the app itself, not Node` };
  const version = await nodeVersion(candidate);
  const major = version === null ? null : Number(/^v(\d+)\./.exec(version)?.[1]);
  if (version === null || major === null || !Number.isInteger(major)) return { ok: false, problem: `${candidate} did not report a Node version` };
  if (major < MIN_NODE_MAJOR) return { ok: false, problem: `${candidate} is Node ${version}; the supervisor needs Node >= ${MIN_NODE_MAJOR}` };
  return { ok: true, execPath: candidate, version };
}

/** `node --version` with an empty environment, the way the supervisor itself is started. */
function nodeVersion(command: string): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(command, ['--version'], { env: {}, timeout: VERSION_TIMEOUT_MS, shell: false, maxBuffer: 4096 }, (error, stdout) => {
      const line = stdout.toString().trim();
      resolve(error || line === '' ? null : line.slice(0, 64));
    });
  });
}

/**
 * The supervisor bundle inside the app. Plain Node cannot read app.asar, so packaging unpacks
 * out/cli (and the packages it imports) into app.asar.unpacked beside it.
 */
export function supervisorScriptPath(appPath: string): string {
  return path.join(appPath.replace(/\.asar$/, '.asar.unpacked'), 'out', 'cli', 'supervisor.mjs');
}
