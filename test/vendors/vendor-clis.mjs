// The real vendor CLIs the vendor suite runs against: pinned versions, installed outside the
// repository (never project dependencies), shared by the installer and the tests.
import { execFileSync } from 'node:child_process';
import { homedir } from 'node:os';
import path from 'node:path';

/** @type {readonly import('./vendor-clis.d.mts').VendorCli[]} */
export const VENDOR_CLIS = [
  // Claude Code's bin is a placeholder until its postinstall links the platform's native binary in.
  { id: 'claude', packageName: '@anthropic-ai/claude-code', version: '2.1.328', bin: 'claude', folder: 'claude-code-2.1.328', setupScript: 'install.cjs' },
  { id: 'codex', packageName: '@openai/codex', version: '0.169.0', bin: 'codex', folder: 'codex-0.169.0', setupScript: null },
  { id: 'gemini', packageName: '@google/gemini-cli', version: '0.61.0', bin: 'gemini', folder: 'gemini-cli-0.61.0', setupScript: null },
  // OpenCode's bin is a placeholder until its postinstall links the platform's native binary in.
  { id: 'opencode', packageName: 'opencode-ai', version: '1.18.33', bin: 'opencode', folder: 'opencode-1.18.33', setupScript: 'postinstall.mjs' },
  { id: 'copilot', packageName: '@github/copilot', version: '1.0.102', bin: 'copilot', folder: 'copilot-1.0.102', setupScript: null },
  { id: 'qwen', packageName: '@qwen-code/qwen-code', version: '0.24.4', bin: 'qwen', folder: 'qwen-code-0.24.4', setupScript: null },
];

/** `$CITADEL_VENDOR_CACHE`, else `${XDG_CACHE_HOME:-$HOME/.cache}/citadel-vendors`. */
export function vendorCacheDir(env = process.env) {
  if (env.CITADEL_VENDOR_CACHE) return path.resolve(env.CITADEL_VENDOR_CACHE);
  return path.join(env.XDG_CACHE_HOME || path.join(homedir(), '.cache'), 'citadel-vendors');
}

/** The npm prefix one CLI is installed into. */
export function vendorPrefix(cli, env = process.env) {
  return path.join(vendorCacheDir(env), cli.folder);
}

/** The folder holding the CLI's executable (npm's `.bin`), to put first on PATH. */
export function vendorBinDir(cli, env = process.env) {
  return path.join(vendorPrefix(cli, env), 'node_modules', '.bin');
}

/** What `<bin> --version` printed (trimmed), or null when it could not run. */
export function installedVersionOutput(cli, env = process.env) {
  try {
    return execFileSync(path.join(vendorBinDir(cli, env), cli.bin), ['--version'], { encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  } catch {
    return null;
  }
}

/**
 * `2.1.328 (Claude Code)`, `codex-cli 0.169.0` and `0.61.0` name the version as one whitespace-separated
 * word; Copilot ends its sentence after it (`GitHub Copilot CLI 1.0.102.`), so a trailing period is dropped.
 */
export function isExpectedVersion(cli, output) {
  return output !== null && output.split(/\s+/).some((word) => word.replace(/\.$/, '') === cli.version);
}
