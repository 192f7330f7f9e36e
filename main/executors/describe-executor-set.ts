import { canonicalProfileOrder, executorSetDigest, profileDigest } from '../../shared/executors/executor-digests';
import { branchIdFor, type ExecutorSetDescription } from '../../shared/executors/executor-set-description';
import type { ExecutorProfile } from '../../shared/executors/profile-schema';
import { adapterFor } from '../runtimes/registry';

/** Digests and exact argv of a validated executor set, in canonical (profile_id) order. */
export function describeExecutorSet(profiles: readonly ExecutorProfile[]): ExecutorSetDescription {
  return {
    profiles: canonicalProfileOrder(profiles).map((profile) => {
      const invocation = adapterFor(profile.runtime).invocation(profile);
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
