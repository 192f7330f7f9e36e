import { constants } from 'node:fs';
import { access, readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { CitadelError } from '../../shared/errors';
import type { VendorPackage } from './adapter-contract/runtime-adapter';

export interface ResolvedExecutable {
  /** What spawn() runs, with shell: false. */
  readonly command: string;
  /** Literal arguments placed before the invocation's own (the JS entrypoint when launched with Node). */
  readonly argsPrefix: readonly string[];
  /** The file found on PATH. */
  readonly foundAt: string;
  readonly via: 'path' | 'npm-shim';
}

export interface ResolveOptions {
  readonly platform?: NodeJS.Platform;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The Node executable that launches a vendor's JavaScript entrypoint (Windows shim rule). */
  readonly nodeExecPath?: string;
}

const DEFAULT_PATHEXT = '.COM;.EXE;.BAT;.CMD';
const SHIM_EXTENSIONS = new Set(['.cmd', '.bat']);
const JS_ENTRY_EXTENSIONS = new Set(['.js', '.mjs', '.cjs']);
const MAX_SHIM_BYTES = 64 * 1024;

/**
 * Finds a runtime's executable by bare name on PATH (decisions D5). Relative PATH entries are
 * ignored so the result never depends on the working directory. On Windows an npm `.cmd`/`.bat`
 * shim cannot be started without a command interpreter: only the known vendor package's shim is
 * followed, to the entrypoint its package.json declares; any other shim fails closed.
 */
export async function resolveExecutable(
  name: string,
  vendor: VendorPackage,
  options: ResolveOptions = {},
): Promise<ResolvedExecutable> {
  const platform = options.platform ?? process.platform;
  const env = options.env ?? process.env;
  const windows = platform === 'win32';
  const dirs = (envValue(env, 'PATH', windows) ?? '').split(windows ? ';' : ':').filter((dir) => path.isAbsolute(dir));
  const extensions = windows
    ? (envValue(env, 'PATHEXT', windows) ?? DEFAULT_PATHEXT).split(';').filter(Boolean).map((ext) => ext.toLowerCase())
    : [''];

  for (const dir of dirs) {
    for (const ext of extensions) {
      const candidate = path.join(dir, name + ext);
      if (!(await isRunnableFile(candidate, windows))) continue;
      if (!SHIM_EXTENSIONS.has(ext)) return { command: candidate, argsPrefix: [], foundAt: candidate, via: 'path' };
      return resolveVendorShim(candidate, vendor, options.nodeExecPath ?? process.execPath);
    }
  }
  throw new CitadelError('RUNTIME_NOT_FOUND', `"${name}" was not found on PATH`, { details: { executable: name } });
}

async function resolveVendorShim(shimPath: string, vendor: VendorPackage, nodeExecPath: string): Promise<ResolvedExecutable> {
  const refuse = (why: string): never => {
    throw new CitadelError('RUNTIME_SHIM_UNSUPPORTED', `refusing to run ${path.basename(shimPath)}: ${why}`, {
      details: { shim: shimPath, vendor_package: vendor.name },
    });
  };
  const packageDir = path.join(path.dirname(shimPath), 'node_modules', ...vendor.name.split('/'));
  const manifest = await readJsonBounded(path.join(packageDir, 'package.json'));
  if (!manifest || typeof manifest !== 'object' || (manifest as { name?: unknown }).name !== vendor.name) {
    return refuse(`it is not the ${vendor.name} npm shim`);
  }
  const bin = (manifest as { bin?: unknown }).bin;
  const relativeEntry = typeof bin === 'string' ? bin : bin && typeof bin === 'object' ? (bin as Record<string, unknown>)[vendor.bin] : undefined;
  if (typeof relativeEntry !== 'string') return refuse(`${vendor.name} declares no "${vendor.bin}" bin`);

  const shimText = await readFile(shimPath, 'utf8').catch(() => '');
  const expectedReference = ['node_modules', ...vendor.name.split('/'), ...relativeEntry.split(/[\\/]/).filter((s) => s && s !== '.')]
    .join('\\')
    .toLowerCase();
  if (shimText.length > MAX_SHIM_BYTES || !shimText.toLowerCase().includes(expectedReference)) {
    return refuse(`its content does not launch ${vendor.name}'s declared entrypoint`);
  }

  const realPackageDir = await realpath(packageDir);
  const entry = await realpath(path.resolve(packageDir, relativeEntry)).catch(() => null);
  if (entry === null || !isInside(realPackageDir, entry)) return refuse(`the entrypoint is missing or outside ${vendor.name}`);
  const ext = path.extname(entry).toLowerCase();
  if (JS_ENTRY_EXTENSIONS.has(ext)) return { command: nodeExecPath, argsPrefix: [entry], foundAt: shimPath, via: 'npm-shim' };
  if (ext === '.exe') return { command: entry, argsPrefix: [], foundAt: shimPath, via: 'npm-shim' };
  return refuse(`the entrypoint ${path.basename(entry)} is neither JavaScript nor a native executable`);
}

function envValue(env: Readonly<Record<string, string | undefined>>, name: string, caseInsensitive: boolean): string | undefined {
  if (!caseInsensitive) return env[name];
  const key = Object.keys(env).find((k) => k.toUpperCase() === name);
  return key === undefined ? undefined : env[key];
}

async function isRunnableFile(candidate: string, windows: boolean): Promise<boolean> {
  try {
    if (!(await stat(candidate)).isFile()) return false;
    if (!windows) await access(candidate, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function readJsonBounded(file: string): Promise<unknown> {
  try {
    const info = await stat(file);
    if (!info.isFile() || info.size > MAX_SHIM_BYTES * 16) return null;
    return JSON.parse(await readFile(file, 'utf8')) as unknown;
  } catch {
    return null;
  }
}

function isInside(dir: string, file: string): boolean {
  const relative = path.relative(dir, file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}
