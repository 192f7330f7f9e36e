import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CitadelError } from '../../shared/errors';
import { carriesCredentials } from './registries/registry-url';

type Env = Readonly<Record<string, string | undefined>>;

/** The commands whose registry and cache are npm's own configuration (npx installs through npm). */
const NPM_COMMANDS: ReadonlySet<string> = new Set(['npm', 'npx']);

/** What the operator's npm configuration (environment, user and global .npmrc; never a project's) says, read by npm itself. */
export interface NpmConfig {
  readonly registry: string;
  /** The operator's registries by scope (`@scope:registry`), as npm would use them. */
  readonly scopes: Readonly<Record<string, string>>;
  /** Absolute: the operator's own npm cache, which Citadel only reads tarballs from (npm-cache.ts). */
  readonly cache: string;
}

const CONFIG_TIMEOUT_MS = 30_000;

/** Whether `command` installs through npm, so npm's cache is one of its package caches. */
export function usesNpmConfig(command: string): boolean {
  return NPM_COMMANDS.has(command);
}

/** One reading of npm's configuration for all the steps that need it, made when the first does. */
export function npmConfigOnce(env: Env): () => Promise<NpmConfig> {
  let read: Promise<NpmConfig> | null = null;
  return () => (read ??= readNpmConfig(env));
}

/**
 * npm's settings as the operator's configuration alone resolves them: npm runs in
 * an empty folder of Citadel's, so no repository's `.npmrc` can choose the registry a step may
 * reach or the folder it may write.
 */
export async function readNpmConfig(env: Env): Promise<NpmConfig> {
  const neutral = await mkdtemp(path.join(os.tmpdir(), 'citadel-npm-config-'));
  try {
    // npm looks upward for a project root: its own package.json stops it from taking one above (a shared /tmp's).
    await writeFile(path.join(neutral, 'package.json'), '{}\n');
    return parseNpmConfig(await npmConfigGet(env, neutral));
  } finally {
    await rm(neutral, { recursive: true, force: true });
  }
}

function npmConfigGet(env: Env, cwd: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const child = spawn('npm', ['config', 'list', '--json'], { cwd, env: { ...env }, shell: false, stdio: ['ignore', 'pipe', 'pipe'], timeout: CONFIG_TIMEOUT_MS });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('error', (cause) => reject(new CitadelError('SETUP_REGISTRY_UNSUPPORTED', `cannot run npm to read its configuration: ${cause.message}`, { cause })));
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(chunks).toString('utf8'));
      else reject(new CitadelError('SETUP_REGISTRY_UNSUPPORTED', `npm config list exited ${code ?? 'by a signal'}`, { details: { exit_code: code } }));
    });
  });
}

const hasCredentials = (registry: string): boolean => {
  try {
    return carriesCredentials(new URL(registry));
  } catch {
    // Not a URL npm could use either; refused if it might hold a user.
    return registry.includes('@');
  }
};

/** npm's settings as `npm config list --json` prints them (credentials shown as "(protected)", and never passed on here). */
function parseNpmConfig(output: string): NpmConfig {
  let values: Record<string, unknown> = {};
  try {
    values = JSON.parse(output) as Record<string, unknown>;
  } catch {
    // Reported below as missing values.
  }
  const { registry, cache } = values;
  if (typeof registry !== 'string' || typeof cache !== 'string' || !cache.startsWith('/')) {
    // npm hides ("protected") a registry URL with a password in it: credentials are not passed into setup either.
    throw new CitadelError('SETUP_REGISTRY_UNSUPPORTED', 'npm config list did not print an absolute cache and a registry (npm withholds a registry URL that carries a password; credentials are not passed into setup: set registry in ~/.npmrc without them)');
  }
  if (hasCredentials(registry)) {
    throw new CitadelError('SETUP_REGISTRY_UNSUPPORTED', "npm's configured registry (npm_config_registry, ~/.npmrc or the global npmrc) carries credentials (a user, a password or a query) in its URL; credentials are not passed into setup, where the repository's code runs: name a registry that needs none from this machine");
  }
  const scopes = Object.fromEntries(Object.entries(values).filter((entry): entry is [string, string] => /^@[^:]+:registry$/.test(entry[0]) && typeof entry[1] === 'string'));
  return { registry, scopes, cache };
}
