import { digestOf, type Digest } from '../../shared/digest';
import type { SetupStep } from '../../shared/fork/workflow';
import { containmentDigest, type ContainmentTemplate } from '../../shared/sandbox/containment-policy';
import { PORT_ENV_NAME } from '../runtimes/env-allowlist';
import { usesNpmConfig } from './package-toolchain';
import { REGISTRY_ENV_NAMES, toolchainOf } from './registries';

/** The template root of a toolchain's package cache (npm's configured cache), seen read-write by setup only. */
export const PACKAGE_CACHE_ROOT = 'package-cache';

/** What npm inside setup is told, so it uses the operator's registry and cache although it cannot read the operator's home. */
export const NPM_ENV_NAMES = ['npm_config_cache', 'npm_config_registry', 'npm_config_update_notifier'] as const;

/**
 * The template a contained setup step runs under: the contract's verifier template (worktree
 * read-write, git metadata and toolchain read-only, the allowlisted environment, HOME in a private
 * /tmp) plus CITADEL_PORT, npm's cache read-write for an npm step and, for a `registries` step,
 * egress to exactly the registry hosts its contract step binds and its toolchain's registry
 * settings (the operator's, since the step cannot read the operator's home). A pure function of
 * the contract, so verify-fork recomputes what the receipt claims.
 */
export function setupTemplate(verifier: ContainmentTemplate, step: SetupStep): ContainmentTemplate {
  const npm = usesNpmConfig(step.command);
  const toolchain = step.network === 'registries' ? toolchainOf(step.command, step.args) : null;
  const registryNames = toolchain === null ? [] : REGISTRY_ENV_NAMES[toolchain];
  return {
    ...verifier,
    read_write: npm ? [...verifier.read_write, PACKAGE_CACHE_ROOT] : [...verifier.read_write],
    env_names: [...new Set([...verifier.env_names, ...(npm ? NPM_ENV_NAMES : []), ...registryNames, PORT_ENV_NAME])].sort(),
    egress: step.network === 'registries' ? { kind: 'cloud', hosts: [...step.registry_hosts] } : { kind: 'none' },
  };
}

/** The policy digest a contained setup's receipt records: one containment digest per step, in order. */
export function setupPolicyDigest(verifier: ContainmentTemplate, steps: readonly SetupStep[]): Digest {
  return digestOf(steps.map((step) => containmentDigest(setupTemplate(verifier, step))));
}
