import { lstat, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const PREFIX = 'citadel-demo-';
/** What mkdtemp makes of PREFIX: six more characters. */
const MADE_NAME = /^citadel-demo-[A-Za-z0-9]{6}$/;

/** Where the Citadel home's demo folder records the last demo's scratch, so the next demo replaces it. */
export function lastScratchRecord(citadelHome: string): string {
  return path.join(citadelHome, 'demo', 'last-scratch');
}

/**
 * A fresh scratch folder for one demo, after removing the previous demo's. It lies in the temporary
 * directory, not in the Citadel home: the simulated runtimes in it are a contained run's toolchain,
 * and a toolchain inside the fork root is refused.
 */
export async function freshDemoScratch(citadelHome: string): Promise<string> {
  const record = lastScratchRecord(citadelHome);
  const previous = (await readFile(record, 'utf8').catch(() => '')).trim();
  if (await isDemoScratch(previous)) await rm(previous, { recursive: true, force: true });
  const scratch = await mkdtemp(path.join(os.tmpdir(), PREFIX));
  await mkdir(path.dirname(record), { recursive: true, mode: 0o700 });
  await writeFile(record, `${scratch}\n`, { mode: 0o600 });
  return scratch;
}

/** Only a folder mkdtemp made for a demo, of this user's, is removed: never whatever a damaged record names. */
async function isDemoScratch(dir: string): Promise<boolean> {
  if (!path.isAbsolute(dir) || !MADE_NAME.test(path.basename(dir))) return false;
  const stats = await lstat(dir).catch(() => null);
  return stats !== null && stats.isDirectory() && stats.uid === process.getuid?.();
}
