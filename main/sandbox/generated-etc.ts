import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { LaunchFile } from './sandbox-backend';

/**
 * The one user the sandbox has. A non-zero id keeps a root operator's sandbox unprivileged while
 * still letting it create nested user namespaces (Codex's own sandbox is bubblewrap).
 */
export const SANDBOX_UID = 1000;
export const SANDBOX_GID = 1000;

/**
 * The host /etc entries a CLI needs: name resolution of localhost, TLS roots, time zone, the
 * dynamic linker's cache and Debian's alternatives symlinks (`awk`, `which`, …). `/etc/ssl/private`
 * is deliberately absent. Entries missing on a host are skipped.
 */
export const HOST_ETC_ENTRIES = [
  '/etc/hosts',
  '/etc/nsswitch.conf',
  '/etc/ssl/certs',
  '/etc/ssl/openssl.cnf',
  '/etc/ca-certificates',
  '/etc/localtime',
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/alternatives',
] as const;

/** The /etc files generated per launch, by their name under /etc. */
export function generatedEtcFiles(home: string): Readonly<Record<'passwd' | 'group' | 'resolv.conf', string>> {
  return {
    passwd: `citadel:x:${SANDBOX_UID}:${SANDBOX_GID}:Citadel sandbox:${home}:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`,
    group: `citadel:x:${SANDBOX_GID}:\nnogroup:x:65534:\n`,
    // No nameserver is reachable inside: fail at once instead of waiting (Codex waited 5 s at exit).
    'resolv.conf': 'options timeout:0 attempts:1\n',
  };
}

/** Writes a launch's files (private to the operator; the sandbox's user maps to them). */
export async function writeLaunchFiles(files: readonly LaunchFile[]): Promise<void> {
  for (const file of files) {
    await mkdir(path.dirname(file.path), { recursive: true, mode: 0o700 });
    await writeFile(file.path, 'text' in file ? file.text : file.bytes, { mode: 0o600 });
  }
}
