/**
 * Compile-time checks of `window.citadel`'s type, enforced by `npm run typecheck` (tsc covers test/),
 * not by vitest: a mismatch is a type error, so nothing here needs to run.
 */
import { expectTypeOf } from 'vitest';
import type { CitadelAppBridge } from '../../../shared/ipc/app-channels';
import type { CitadelBridge } from '../../../shared/ipc/contract';
import { createBridge } from '../../../preload/bridge';

expectTypeOf(createBridge).returns.toEqualTypeOf<CitadelBridge & CitadelAppBridge>();
expectTypeOf(createBridge).returns.toExtend<CitadelBridge>();
