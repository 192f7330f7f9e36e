import type { RuntimeActivity } from '../../../shared/fork/events';
import { isRecord, parseTypedEvent } from '../output-reading/json-events';

/**
 * One line of Gemini CLI's stream-json as it arrives (issue 14), for the live view only (the outcome
 * is read by parseGeminiOutput at exit). Messages come as many small deltas and are never copied, so
 * they show nothing; a tool is named by its name only (its parameters hold file contents). null for a
 * line that is not an event or says nothing worth showing.
 */
export function geminiActivity(line: string): RuntimeActivity | null {
  const event = parseTypedEvent(line.trim());
  if (event === null) return null;
  switch (event.type) {
    case 'init':
      return { kind: 'session', summary: 'session started' };
    case 'tool_use':
      return { kind: 'command_started', summary: `running ${toolName(event.tool_name)}` };
    case 'tool_result':
      return event.status === 'success' ? { kind: 'command_completed', summary: 'tool finished' } : { kind: 'error', summary: 'a tool call was refused or failed' };
    case 'error':
      return { kind: 'error', summary: 'the runtime reported an error' };
    case 'result':
      return event.status === 'success' ? { kind: 'turn_completed', summary: completed(event.stats) } : { kind: 'turn_failed', summary: 'run failed' };
    default:
      return null;
  }
}

function toolName(value: unknown): string {
  return typeof value === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(value) ? value : 'a tool';
}

function completed(stats: unknown): string {
  const usage = isRecord(stats) ? stats : {};
  const tokens = [count(usage.input_tokens, 'input'), count(usage.output_tokens, 'output')].filter((part) => part !== null);
  return tokens.length === 0 ? 'run completed' : `run completed · ${tokens.join(', ')} tokens`;
}

function count(value: unknown, what: string): string | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? `${value} ${what}` : null;
}
