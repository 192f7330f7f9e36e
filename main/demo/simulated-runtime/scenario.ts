import path from 'node:path';
import { z } from 'zod';

/**
 * The scenario is the JSON file `citadel-simulation.json` beside the executables (the runtime's
 * environment is allowlisted by Citadel, so it cannot carry one):
 *
 *   {
 *     "outcome": "success",          // SIMULATED_OUTCOMES; default "success"
 *     "edits": [{ "path": "src/a.ts", "content": "…" }],
 *                                    // written relative to the cwd before the outcome plays out, for
 *                                    // every outcome; ".." may deliberately leave the cwd
 *     "exit_code": 0,                // replaces the recorded exit code of the outcome
 *     "delay_ms": 0,                 // spread in equal slices before each edit and before the final
 *                                    // output (Codex prints its events as they happen)
 *     "observed_model": "…",         // the model the runtime reports instead of the requested one
 *     "commands": [["sh", "-c", "…"]], // test-only: each argv run in the cwd after the edits, no
 *                                    // shell unless named, output to stderr only (plants git state)
 *     "claude": { … }, "codex": { … }, "gemini": { … }, … // the same fields for one runtime, over the top-level ones
 *   }
 *
 * Outcomes: "success"; "auth_error" (HTTP 401), "api_error_500", "no_server" (Claude: connection
 * refused; Codex: OSS setup failure on stderr, empty stdout) as recorded; "unparsable" (Claude: its
 * result cut off; Codex: a garbled event line mid-stream); "hang" (after the edits, waits until
 * killed); "git_checkout" / "git_commit" / "git_worktree_add" (really run that git command in the
 * cwd, then report success) to trigger Citadel's containment checks.
 */

export const SIMULATED_OUTCOMES = [
  'success',
  'auth_error',
  'api_error_500',
  'unparsable',
  'no_server',
  'hang',
  'git_checkout',
  'git_commit',
  'git_worktree_add',
] as const;
export type SimulatedOutcome = (typeof SIMULATED_OUTCOMES)[number];

const SimulatedBehaviourShape = {
  outcome: z.enum(SIMULATED_OUTCOMES).optional(),
  edits: z
    .array(z.strictObject({ path: z.string().min(1).refine((p) => !path.isAbsolute(p), 'relative to the cwd'), content: z.string() }))
    .optional(),
  exit_code: z.number().int().min(0).max(255).optional(),
  delay_ms: z.number().int().min(0).max(3_600_000).optional(),
  observed_model: z.string().min(1).optional(),
  commands: z.array(z.array(z.string()).min(1)).optional(),
};
const SimulatedBehaviourSchema = z.strictObject(SimulatedBehaviourShape);
export const SimulationScenarioSchema = z.strictObject({
  ...SimulatedBehaviourShape,
  claude: SimulatedBehaviourSchema.optional(),
  codex: SimulatedBehaviourSchema.optional(),
  gemini: SimulatedBehaviourSchema.optional(),
  qwen: SimulatedBehaviourSchema.optional(),
  opencode: SimulatedBehaviourSchema.optional(),
  copilot: SimulatedBehaviourSchema.optional(),
});
export type SimulationScenario = z.input<typeof SimulationScenarioSchema>;
export type SimulatedBehaviour = z.infer<typeof SimulatedBehaviourSchema>;

/** The runtimes with a simulated executable, each installed under its own name. */
export const SIMULATED_RUNTIME_IDS = ['claude', 'codex', 'gemini', 'qwen', 'opencode', 'copilot'] as const;
export type SimulatedRuntimeId = (typeof SIMULATED_RUNTIME_IDS)[number];

export const SIMULATION_FILE_NAME = 'citadel-simulation.json';
