import { randomBytes } from 'node:crypto';
import { appendFile, mkdir } from 'node:fs/promises';
import path from 'node:path';

interface RolloutStart {
  codexHome: string;
  threadId: string;
  cwd: string;
  prompt: string;
  sandbox: string;
  provider: string;
  model: string;
}

/** A rollout as Codex writes it: `{timestamp, ordinal, type, payload}` lines in a local-date folder. */
export async function startRollout(start: RolloutStart): Promise<{ complete(result: Record<string, unknown>): Promise<void> }> {
  const now = new Date();
  const pad = (n: number): string => String(n).padStart(2, '0');
  const [year, month, day] = [String(now.getFullYear()), pad(now.getMonth() + 1), pad(now.getDate())];
  const stamp = `${year}-${month}-${day}T${pad(now.getHours())}-${pad(now.getMinutes())}-${pad(now.getSeconds())}`;
  const dir = path.join(start.codexHome, 'sessions', year, month, day);
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `rollout-${stamp}-${start.threadId}.jsonl`);
  const turnId = uuidV7(now.getTime());
  let ordinal = 0;
  const append = (type: string, payload: Record<string, unknown>): Promise<void> =>
    appendFile(file, `${JSON.stringify({ timestamp: new Date().toISOString(), ordinal: ordinal++, type, payload })}\n`);

  await append('session_meta', {
    session_id: start.threadId,
    id: start.threadId,
    timestamp: now.toISOString(),
    cwd: start.cwd,
    runtime_workspace_roots: [start.cwd],
    originator: 'codex_exec',
    cli_version: '0.169.0',
    source: 'exec',
    thread_source: 'user',
    model_provider: start.provider,
  });
  await append('event_msg', { type: 'task_started', turn_id: turnId, root_turn_id: turnId, started_at: Math.floor(now.getTime() / 1000) });
  await append('turn_context', {
    turn_id: turnId,
    root_turn_id: turnId,
    disabled_plugin_ids: [],
    cwd: start.cwd,
    approval_policy: 'never',
    approvals_reviewer: 'user',
    model: start.model,
    summary: 'auto',
    sandbox_policy: { type: start.sandbox },
  });
  await append('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: start.prompt }] });
  return {
    complete: (result) =>
      append('event_msg', { type: 'task_complete', root_turn_id: turnId, turn_id: turnId, ...result, duration_ms: Date.now() - now.getTime() }),
  };
}

/** RFC 9562 version 7: a 48-bit millisecond timestamp, then random bits (Codex thread ids are v7). */
export function uuidV7(ms: number): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(ms, 0, 6);
  bytes.writeUInt8((bytes.readUInt8(6) & 0x0f) | 0x70, 6);
  bytes.writeUInt8((bytes.readUInt8(8) & 0x3f) | 0x80, 8);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
