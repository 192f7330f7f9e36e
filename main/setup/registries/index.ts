import { cargoRegistries, assertCargoProject } from './cargo';
import { GO_ENV_NAMES, goRegistries } from './go';
import { assertNpmFamilyProject, NPM_FAMILY_ENV_NAMES, npmFamilyRegistries, type NpmFamily } from './npm-family';
import { assertPipProject, assertUvProject, PIP_ENV_NAMES, pipIndexes, pipRegistries, poetryRegistries, UV_ENV_NAMES, uvIndexes, uvRegistries } from './python';
import { unsupported } from './registry-url';
import type { CommittedFile, Env, OperatorNpm, Registries } from './toolchain';

export type { CommittedFile, OperatorNpm, Registries } from './toolchain';

/** The toolchains whose registries a `"network": "registries"` step can be bound to. */
export type Toolchain = NpmFamily | 'pip' | 'uv' | 'poetry' | 'go' | 'cargo';

const COMMANDS: Readonly<Record<string, Toolchain>> = {
  npm: 'npm',
  npx: 'npm',
  pnpm: 'pnpm',
  yarn: 'yarn',
  bun: 'bun',
  pip: 'pip',
  pip3: 'pip',
  uv: 'uv',
  poetry: 'poetry',
  go: 'go',
  cargo: 'cargo',
};

/** The toolchain a setup step runs: its command, or pip run as `python -m pip`; null for any other. */
export function toolchainOf(command: string, args: readonly string[]): Toolchain | null {
  if ((command === 'python' || command === 'python3') && args[0] === '-m' && (args[1] === 'pip' || args[1] === 'pip3')) return 'pip';
  return Object.hasOwn(COMMANDS, command) ? (COMMANDS[command] ?? null) : null;
}

/** The registry settings a `registries` step of each toolchain is given in its environment (the names its setup template lists). */
export const REGISTRY_ENV_NAMES: Readonly<Record<Toolchain, readonly string[]>> = {
  ...NPM_FAMILY_ENV_NAMES,
  pip: PIP_ENV_NAMES,
  uv: UV_ENV_NAMES,
  poetry: [],
  go: GO_ENV_NAMES,
  // Cargo's source replacement has no environment form: a contained step reaches crates.io's defaults.
  cargo: [],
};

export interface RegistryContext {
  /** The operator's environment (HOME, XDG_*, the tools' own variables). */
  readonly env: Env;
  /** npm's settings as the operator's configuration resolves them, read when a step needs them. */
  readonly npm: () => Promise<OperatorNpm>;
}

/** Whether a step's toolchain reads the repository's `.npmrc` (pnpm, Yarn 1.x and bun do, as npm does). */
export function readsNpmrc(step: { readonly command: string; readonly args: readonly string[] }): boolean {
  const toolchain = toolchainOf(step.command, step.args);
  return toolchain === 'npm' || toolchain === 'pnpm' || toolchain === 'yarn' || toolchain === 'bun';
}

const supported = 'npm, npx, pnpm, yarn, bun, pip (or python -m pip), uv, poetry, go, cargo';

/**
 * The hosts a `"network": "registries"` step may reach and the settings it is given, from the
 * operator's own configuration of its toolchain; refused (SETUP_REGISTRY_UNSUPPORTED) for any other
 * command, a registry that is not an https host name on port 443, or when the repository's own
 * settings (`committed`, what every worktree gets) name a registry the operator's do not.
 */
export async function bindRegistries(step: { readonly command: string; readonly args: readonly string[] }, context: RegistryContext, committed: CommittedFile): Promise<Registries> {
  const toolchain = toolchainOf(step.command, step.args);
  switch (toolchain) {
    case null:
      throw unsupported(`setup command ${step.command} has no known package registry configuration; "network": "registries" knows ${supported}`, { command: step.command });
    case 'npm':
    case 'pnpm':
    case 'yarn':
    case 'bun': {
      const bound = await npmFamilyRegistries(toolchain, context.env, await context.npm());
      await assertNpmFamilyProject(toolchain, committed, bound.origins);
      return { hosts: bound.hosts, env: bound.env };
    }
    case 'pip': {
      const bound = await pipRegistries(context.env);
      await assertPipProject(step.args, committed, await pipIndexes(context.env));
      return bound;
    }
    case 'uv': {
      const bound = await uvRegistries(context.env);
      await assertUvProject(committed, await uvIndexes(context.env));
      return bound;
    }
    case 'poetry':
      return poetryRegistries(context.env, committed);
    case 'go':
      return goRegistries(context.env);
    case 'cargo': {
      const bound = await cargoRegistries(context.env);
      await assertCargoProject(committed, bound.urls);
      return { hosts: bound.hosts, env: bound.env };
    }
  }
}

/**
 * The registry settings a bound `registries` step is given when it runs, read again from the
 * operator's configuration (as npm's registry and cache are); {} for a step of no known toolchain.
 */
export async function registryEnv(step: { readonly command: string; readonly args: readonly string[] }, context: RegistryContext): Promise<Record<string, string>> {
  const toolchain = toolchainOf(step.command, step.args);
  switch (toolchain) {
    case null:
    case 'npm':
    case 'poetry':
    case 'cargo':
      return {};
    case 'pnpm':
    case 'yarn':
    case 'bun':
      return { ...(await npmFamilyRegistries(toolchain, context.env, await context.npm())).env };
    case 'pip':
      return { ...(await pipRegistries(context.env)).env };
    case 'uv':
      return { ...(await uvRegistries(context.env)).env };
    case 'go':
      return { ...(await goRegistries(context.env)).env };
  }
}
