import { digestOf, type Digest } from '../digest';
import type { RuntimeProfile } from './runtime-profile';

/** Profiles ordered by profile_id (UTF-16 code units): the canonical branch and digest order. */
export function canonicalProfileOrder<P extends { profile_id: string }>(profiles: readonly P[]): P[] {
  return [...profiles].sort((a, b) => (a.profile_id < b.profile_id ? -1 : a.profile_id > b.profile_id ? 1 : 0));
}

/** Digest of the five-field profile exactly as declared: defaults are not filled in (decisions D3). */
export function profileDigest(profile: RuntimeProfile): Digest {
  return digestOf(profile);
}

/** Digest of the JSON array of profile digests ordered by profile_id (decisions D3). */
export function executorSetDigest(profiles: readonly RuntimeProfile[]): Digest {
  return digestOf(canonicalProfileOrder(profiles).map(profileDigest));
}
