export interface VendorCli {
  readonly id: 'claude' | 'codex' | 'gemini' | 'opencode' | 'copilot' | 'qwen';
  readonly packageName: string;
  readonly version: string;
  readonly bin: string;
  /** Folder name of this CLI's npm prefix inside the vendor cache. */
  readonly folder: string;
  /** A setup script of the package, run by name after an install that ran no scripts; null when none is needed. */
  readonly setupScript: string | null;
}

export const VENDOR_CLIS: readonly VendorCli[];
export function vendorCacheDir(env?: NodeJS.ProcessEnv): string;
export function vendorPrefix(cli: VendorCli, env?: NodeJS.ProcessEnv): string;
export function vendorBinDir(cli: VendorCli, env?: NodeJS.ProcessEnv): string;
export function installedVersionOutput(cli: VendorCli, env?: NodeJS.ProcessEnv): string | null;
export function isExpectedVersion(cli: VendorCli, output: string | null): boolean;
