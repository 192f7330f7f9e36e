/**
 * verifyFork memoised per fork store between mutations: every surface re-verifies the same stored
 * files several times per mutation, and verifyFork is pure of them. The suite forgets a store's
 * answers whenever it changes that store's folder: a mutation applied or restored, or a surface
 * that wrote (a selection recorded). A stale answer could only hide a change, so forgetting is eager.
 */
import type * as VerifyForkModule from '../../../../main/evidence/verify-fork';

type Module = typeof VerifyForkModule;
type Answer = ReturnType<Module['verifyFork']>;
const answers = new WeakMap<object, Map<string, Answer>>();

export function cachedVerifyFork(actual: Module): Module {
  return {
    ...actual,
    verifyFork: (ctx, forkId) => {
      const mine = answers.get(ctx.store) ?? new Map<string, Answer>();
      answers.set(ctx.store, mine);
      let answer = mine.get(forkId);
      if (answer === undefined) {
        answer = actual.verifyFork(ctx, forkId);
        mine.set(forkId, answer);
      }
      return answer;
    },
  };
}

/** Drops every memoised answer of a store: call whenever anything in its folder may have changed. */
export function forget(store: object): void {
  answers.delete(store);
}
