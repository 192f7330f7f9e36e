import { CitadelError } from '../../shared/errors';
import type { ExecutorRuntimeId } from '../../shared/executors/profile-schema';
import { claudeAdapter } from './claude/adapter';
import { codexAdapter } from './codex/adapter';
import { geminiAdapter } from './gemini/adapter';
import { qwenAdapter } from './qwen/adapter';
import { opencodeAdapter } from './opencode/adapter';
import { copilotAdapter } from './copilot/adapter';
import type { RuntimeAdapter } from './adapter-contract/runtime-adapter';

/**
 * The built-in runtime plug-ins, keyed by the runtime id a profile names. An executor file may name
 * a runtime with no adapter here; starting a fork with it is refused (RUNTIME_UNKNOWN) before
 * anything is written.
 */
export const BUILTIN_ADAPTERS = {
  claude: claudeAdapter,
  codex: codexAdapter,
  gemini: geminiAdapter,
  qwen: qwenAdapter,
  opencode: opencodeAdapter,
  copilot: copilotAdapter,
} as const satisfies Readonly<Partial<Record<ExecutorRuntimeId, RuntimeAdapter>>>;

/** The adapter a profile's runtime names, from the set the caller runs with (never an implicit default, so a preview and a launch cannot disagree). */
export function adapterFor(runtime: string, adapters: Readonly<Record<string, RuntimeAdapter>>): RuntimeAdapter {
  const adapter = Object.prototype.hasOwnProperty.call(adapters, runtime) ? adapters[runtime] : undefined;
  if (!adapter) throw new CitadelError('RUNTIME_UNKNOWN', `no adapter is registered for runtime "${runtime}"`);
  return adapter;
}
