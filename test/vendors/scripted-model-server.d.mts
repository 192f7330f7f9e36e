import type { Server } from 'node:http';

/** Types for the recording's scripted model server (scripted-model-server.mjs), for the vendor tests that reuse it. */

export const USAGE: { readonly input: number; readonly output: number; readonly total: number };
export const TEXT_REPLY: string;
export const TOOL_PREAMBLE: string;
export const FINAL_AFTER_TOOL: string;
export const HANG_PREFIX: string;

export interface ScriptedServerOptions {
  /** `text` | `edit` | `err500` | `err401` | `err400key` (Gemini API only) | `hang` */
  readonly scenario: string;
  /** JSONL log of requests and replies. */
  readonly logFile: string;
  readonly servedModel?: string | null;
  readonly toolCall?: { readonly name: string; readonly args: Record<string, unknown> } | null;
  readonly toolCallMatch?: string | null;
  readonly onHang?: (info: { n: number; url: string }) => void;
}

/** The running server; `closeAll` also ends held-open responses. */
export type ScriptedServer = Server & { closeAll(): void };

export function startScriptedServer(port: number, options: ScriptedServerOptions): Promise<ScriptedServer>;
