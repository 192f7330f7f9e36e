import { canonicalProfileOrder, executorSetDigest, profileDigest } from '../../shared/executors/executor-digests';
import { branchIdFor, type ExecutorSetDescription } from '../../shared/executors/executor-set-description';
import type { ExecutorProfileV2 } from '../../shared/executors/profile-schema';
import { adapterFor } from '../runtimes/registry';
import type { InvocationContainment, RuntimeAdapter } from '../runtimes/adapter-contract/runtime-adapter';

/**
 * Digests and exact argv of a validated executor set, in canonical (profile_id) order. The argv
 * comes from the adapters given, which must be the ones the fork would launch with, under the
 * containment mode it would launch with (an adapter may grant more inside a sandbox).
 */
export function describeExecutorSet(
  profiles: readonly ExecutorProfileV2[],
  adapters: Readonly<Record<string, RuntimeAdapter>>,
  containment: InvocationContainment,
): ExecutorSetDescription {
  return {
    profiles: canonicalProfileOrder(profiles).map((profile) => {
      const invocation = adapterFor(profile.runtime, adapters).invocation(profile, containment);
      return {
        profile_id: profile.profile_id,
        branch_id: branchIdFor(profile.profile_id),
        runtime: profile.runtime,
        model: profile.model,
        local_provider: profile.local_provider,
        profile_digest: profileDigest(profile),
        argv: [invocation.executable, ...invocation.args],
      };
    }),
    executor_set_digest: executorSetDigest(profiles),
  };
}
