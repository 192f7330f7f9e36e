import { isCitadelError } from '../../shared/errors';
import type { SandboxBackendId } from '../../shared/sandbox/containment-policy';
import type { SandboxReadiness } from '../../shared/sandbox/sandbox-readiness';
import { bubblewrapBackend } from './bubblewrap';
import { sandboxUnavailable, type SandboxBackend, type SandboxLauncher } from './sandbox-backend';
import { seatbeltBackend } from './seatbelt';

/** The built-in containment plug-ins, keyed by the backend id a policy names. */
export const BUILTIN_SANDBOX_BACKENDS: Readonly<Record<SandboxBackendId, SandboxBackend>> = {
  bubblewrap: bubblewrapBackend,
  seatbelt: seatbeltBackend,
};

type Backends = Readonly<Record<string, SandboxBackend>>;
type Env = Readonly<Record<string, string | undefined>>;

/** The backend that serves a platform, or undefined (Windows and anything else). */
export function sandboxBackendFor(platform: NodeJS.Platform, backends: Backends): SandboxBackend | undefined {
  return Object.values(backends).find((backend) => backend.platforms.includes(platform));
}

/** A working launcher for this platform, or SANDBOX_UNAVAILABLE naming what is missing (fail closed). */
export async function readySandbox(platform: NodeJS.Platform, backends: Backends, env: Env): Promise<SandboxLauncher> {
  const backend = sandboxBackendFor(platform, backends);
  if (!backend) throw sandboxUnavailable(null, `Citadel has no containment backend for ${platform}`, null);
  return backend.probe(env);
}

/** Readiness as `citadel runtimes` reports it: the same probe as a launch, as a fact instead of a refusal. */
export async function sandboxReadiness(platform: NodeJS.Platform, backends: Backends, env: Env): Promise<SandboxReadiness> {
  const backend = sandboxBackendFor(platform, backends) ?? null;
  try {
    const launcher = await readySandbox(platform, backends, env);
    return { backend: launcher.backend, ready: true, executable: launcher.executable, version: launcher.version, problem: null, install: null };
  } catch (error) {
    if (!isCitadelError(error) || error.code !== 'SANDBOX_UNAVAILABLE') throw error;
    const install = error.details?.['install'];
    const problem = error.details?.['problem'];
    return {
      backend: backend?.id ?? null,
      ready: false,
      executable: null,
      version: null,
      problem: typeof problem === 'string' ? problem : error.message,
      install: typeof install === 'string' ? install : null,
    };
  }
}
