import { execFile } from 'node:child_process';
import { CitadelError, isCitadelError } from '../../shared/errors';
import type { LocalProviderReadiness, ReadinessReport, RuntimeReadiness } from '../../shared/runtime/readiness';
import type { SandboxReadiness } from '../../shared/sandbox/sandbox-readiness';
import { childEnvironment } from '../runtimes/env-allowlist';
import { probeLocalProviders, providerEndpointsFrom, type ProviderEndpoints } from '../runtimes/local-providers/local-providers';
import { resolveExecutable } from '../runtimes/resolve-executable';
import { credentialFacts } from '../runtimes/credentials/resolve-grant';
import { hostCredentialDeps, type CredentialDeps } from '../runtimes/credentials/runtime-credentials';
import type { RuntimeAdapter } from '../runtimes/adapter-contract/runtime-adapter';
import { sandboxReadiness } from '../sandbox/registry';
import type { SandboxBackend } from '../sandbox/sandbox-backend';

const VERSION_TIMEOUT_MS = 5000;

/**
 * `citadel runtimes`: for each adapter, the executable found on PATH and its version, whether
 * credentials appear configured (names only, never values), what local providers serve, and
 * whether this platform's containment backend works (the same probe `fork start` makes).
 */
export async function readinessReport(
  adapters: Readonly<Record<string, RuntimeAdapter>>,
  env: Readonly<Record<string, string | undefined>>,
  sandboxBackends: Readonly<Record<string, SandboxBackend>>,
  endpoints: ProviderEndpoints = providerEndpointsFrom(env),
): Promise<ReadinessReport> {
  const [runtimes, local_providers, sandbox] = await Promise.all([
    Promise.all(Object.values(adapters).map((adapter) => runtimeReadiness(adapter, env))),
    probeLocalProviders(endpoints),
    sandboxReadinessHere(sandboxBackends, env),
  ]);
  return { runtimes, local_providers, sandbox };
}

/*
 * The report's parts one by one, so that Settings shows each as it answers instead of waiting for
 * the slowest (a runtime's `--version` can take seconds).
 */

/** One adapter's readiness by id; an id no adapter has is RUNTIME_UNKNOWN. */
export function readinessOfRuntime(adapters: Readonly<Record<string, RuntimeAdapter>>, env: Readonly<Record<string, string | undefined>>, runtime: string): Promise<RuntimeReadiness> {
  const adapter = Object.hasOwn(adapters, runtime) ? adapters[runtime] : undefined;
  if (adapter === undefined) return Promise.reject(new CitadelError('RUNTIME_UNKNOWN', `No runtime is named "${runtime}" here; known: ${Object.keys(adapters).join(', ')}.`));
  return runtimeReadiness(adapter, env);
}

export function localProviderReadiness(env: Readonly<Record<string, string | undefined>>): Promise<LocalProviderReadiness[]> {
  return probeLocalProviders(providerEndpointsFrom(env));
}

export function sandboxReadinessHere(sandboxBackends: Readonly<Record<string, SandboxBackend>>, env: Readonly<Record<string, string | undefined>>): Promise<SandboxReadiness> {
  return sandboxReadiness(process.platform, sandboxBackends, env);
}

/**
 * One adapter's readiness: what its executable and credential names look like in this environment,
 * and where its provider credential would come from (kind and expiry, never a value).
 */
export async function runtimeReadiness(
  adapter: RuntimeAdapter,
  parentEnv: Readonly<Record<string, string | undefined>>,
  credentialDeps: CredentialDeps = hostCredentialDeps(),
): Promise<RuntimeReadiness> {
  const { env, presentNames } = childEnvironment(parentEnv, adapter);
  const sources = presentNames.filter((name) => adapter.credentialEnvNames.includes(name));
  const credentials = { configured: sources.length > 0, sources };
  const credential = await credentialFacts(adapter.credentials, parentEnv, credentialDeps);
  try {
    const resolved = await resolveExecutable(adapter.executable, adapter.vendorPackage, { env });
    return {
      runtime: adapter.id,
      executable: { name: adapter.executable, found: true, path: resolved.foundAt, via: resolved.via, version: await versionOf(resolved.command, [...resolved.argsPrefix, '--version'], env), problem: null },
      credentials,
      credential,
    };
  } catch (error) {
    if (!isCitadelError(error)) throw error;
    return {
      runtime: adapter.id,
      executable: { name: adapter.executable, found: false, path: null, via: null, version: null, problem: `${error.code}: ${error.message} (it installs from the npm package ${adapter.vendorPackage.name})` },
      credentials,
      credential,
    };
  }
}

function versionOf(command: string, args: string[], env: Record<string, string>): Promise<string | null> {
  return new Promise((resolve) => {
    const child = execFile(command, args, { env, timeout: VERSION_TIMEOUT_MS, shell: false, maxBuffer: 64 * 1024 }, (error, stdout) => {
      const line = stdout.toString().trim().split('\n')[0]?.trim() ?? '';
      resolve(error || line === '' ? null : line.slice(0, 200));
    });
    // Nothing is sent: a CLI that reads its prompt from stdin before looking at its flags sees the end at once instead of waiting out the timeout.
    child.stdin?.end();
  });
}
