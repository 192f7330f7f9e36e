import { BUILTIN_ADAPTERS } from '../../main/runtimes/registry';
import type { RuntimeAdapter } from '../../main/runtimes/adapter-contract/runtime-adapter';
import { claudeCase } from './cases/claude.case';
import { codexCase } from './cases/codex.case';
import { copilotCase } from './cases/copilot.case';
import { conformanceEchoCase } from './cases/conformance-echo.case';
import { geminiCase } from './cases/gemini.case';
import { qwenCase } from './cases/qwen.case';
import { opencodeCase } from './cases/opencode.case';
import type { ConformanceCase } from './cases/conformance-case';
import { conformanceEchoAdapter } from './conformance-echo/adapter';

/**
 * The suite's adapters: every built-in one plus the test-only conformance-echo, registered exactly
 * as a host registers adapters (OrchestratorContext.adapters).
 */
export const CONFORMANCE_ADAPTERS: Readonly<Record<string, RuntimeAdapter>> = {
  ...BUILTIN_ADAPTERS,
  'conformance-echo': conformanceEchoAdapter,
};

/** Every case, imported by name: a case is never discovered from a file name. */
export const CONFORMANCE_CASES: readonly ConformanceCase[] = [claudeCase, codexCase, geminiCase, qwenCase, opencodeCase, copilotCase, conformanceEchoCase];
