import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

/** A fresh temp directory per call, removed after the test that made it. */
export function useTempDirs(): (prefix?: string) => string {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return (prefix = 'citadel-test-') => {
    const dir = mkdtempSync(path.join(tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}
