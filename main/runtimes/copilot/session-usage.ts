import { lstat, readFile, realpath } from 'node:fs/promises';
import path from 'node:path';

/** Past this, a session's events file is not read: its tokens stay unknown. */
const MAX_EVENTS_BYTES = 32 * 1024 * 1024;

export interface SessionTokens {
  readonly input: number;
  readonly output: number;
}

/** `$COPILOT_HOME` of the run, else `$HOME/.copilot`; null when neither is an absolute path. */
export function copilotHomeFrom(env: Readonly<Record<string, string>>): string | null {
  const home = env.COPILOT_HOME || (env.HOME ? path.join(env.HOME, '.copilot') : '');
  return path.isAbsolute(home) ? home : null;
}

/**
 * The tokens of one Copilot session, summed over its `session.usage_record` events in
 * `$COPILOT_HOME/session-state/<sessionId>/events.jsonl`: Copilot prints none on stdout, and
 * `--usage-output-file` would need a per-attempt path in an argv that is a pure function of the
 * profile. The file is written by the runtime's own process, so these are the runtime's claims:
 * the gateway's wire outranks them (budget, model proof, wire_telemetry_tokens_mismatch). Only a
 * regular file inside COPILOT_HOME and under the size cap is read; any record without whole token
 * counts makes the sum unknown. `sessionId` must already be a validated UUID. Never throws: null.
 */
export async function lookupSessionTokens(copilotHome: string, sessionId: string): Promise<SessionTokens | null> {
  try {
    const file = path.join(copilotHome, 'session-state', sessionId, 'events.jsonl');
    const [home, real, stat] = await Promise.all([realpath(copilotHome), realpath(file), lstat(file)]);
    if (!stat.isFile() || stat.size > MAX_EVENTS_BYTES || !real.startsWith(`${home}${path.sep}`)) return null;
    return sumUsage(await readFile(real, 'utf8'));
  } catch {
    return null;
  }
}

function sumUsage(text: string): SessionTokens | null {
  let input = 0;
  let output = 0;
  let records = 0;
  for (const line of text.split('\n')) {
    if (!line.includes('"session.usage_record"')) continue;
    const usage = usageOf(line);
    if (usage === null) return null;
    input += usage.input;
    output += usage.output;
    records += 1;
  }
  return records === 0 ? null : { input, output };
}

function usageOf(line: string): SessionTokens | null {
  try {
    const event: unknown = JSON.parse(line);
    const usage = (event as { data?: { usage?: { inputTokens?: unknown; outputTokens?: unknown } } } | null)?.data?.usage;
    const whole = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
    return usage !== undefined && whole(usage.inputTokens) && whole(usage.outputTokens) ? { input: usage.inputTokens, output: usage.outputTokens } : null;
  } catch {
    return null;
  }
}
