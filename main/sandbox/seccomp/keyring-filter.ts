import { encodeProgram, JEQ_K, JSET_K, LD_W_ABS, RET_K, retErrno, SECCOMP_DATA_ARCH, SECCOMP_DATA_NR, SECCOMP_RET_ALLOW, type SockFilter } from './bpf';

/** The architectures Citadel has a syscall table for, by Node's `process.arch` name. */
export type SeccompArch = 'x64' | 'arm64';

interface ArchTable {
  /** AUDIT_ARCH_* (linux/audit.h): what seccomp_data.arch holds for a native syscall. */
  readonly audit: number;
  /** add_key, request_key, keyctl. */
  readonly keySyscalls: readonly [number, number, number];
  /** x86_64 also accepts x32 syscalls (nr | __X32_SYSCALL_BIT) under the same AUDIT_ARCH. */
  readonly x32: boolean;
}

const TABLES: Readonly<Record<SeccompArch, ArchTable>> = {
  // asm/unistd_64.h (arch/x86/entry/syscalls/syscall_64.tbl): add_key 248, request_key 249, keyctl 250.
  x64: { audit: 0xc000003e, keySyscalls: [248, 249, 250], x32: true },
  // asm-generic/unistd.h, the table aarch64 uses: add_key 217, request_key 218, keyctl 219.
  arm64: { audit: 0xc00000b7, keySyscalls: [217, 218, 219], x32: false },
};

const EPERM = 1;
const ENOSYS = 38;
const X32_SYSCALL_BIT = 0x40000000;

export function seccompArchOf(arch: string): SeccompArch | null {
  return Object.hasOwn(TABLES, arch) ? (arch as SeccompArch) : null;
}

type Target = 'next' | 'allow' | 'eperm' | 'enosys';
interface Step {
  readonly code: number;
  readonly k: number;
  readonly jt: Target;
  readonly jf: Target;
}
const load = (offset: number): Step => ({ code: LD_W_ABS, k: offset, jt: 'next', jf: 'next' });
const jump = (code: number, k: number, jt: Target, jf: Target): Step => ({ code, k, jt, jf });

/**
 * The filter every bubblewrap sandbox runs under: the kernel keyrings are not namespaced by a user
 * namespace, so a process in the sandbox could otherwise read the operator's session keyring
 * (measured: `keyctl print` of a key the operator added). add_key, request_key and keyctl fail
 * with EPERM, as where keyrings are forbidden; everything else is allowed, so a nested sandbox
 * (Codex's own bwrap and seccomp) still works. x32 syscalls and every foreign architecture are
 * denied whole with ENOSYS: the only foreign ABIs a kernel accepts are its 32-bit compat ones (i386
 * through int 0x80, arm32), which no contained tool needs, and denying them whole cannot go wrong
 * the way a second syscall table could (a wrong number there would reopen the keyring).
 */
export function keyringFilter(arch: SeccompArch): SockFilter[] {
  const table = TABLES[arch];
  const steps: Step[] = [
    load(SECCOMP_DATA_ARCH),
    jump(JEQ_K, table.audit, 'next', 'enosys'),
    load(SECCOMP_DATA_NR),
    ...(table.x32 ? [jump(JSET_K, X32_SYSCALL_BIT, 'enosys', 'next')] : []),
    ...table.keySyscalls.map((nr) => jump(JEQ_K, nr, 'eperm', 'next')),
  ];
  const returns: Record<Exclude<Target, 'next'>, number> = { allow: SECCOMP_RET_ALLOW, eperm: retErrno(EPERM), enosys: retErrno(ENOSYS) };
  const at = (target: Exclude<Target, 'next'>): number => steps.length + Object.keys(returns).indexOf(target);
  const offset = (from: number, target: Target): number => (target === 'next' ? 0 : at(target) - from - 1);
  return [
    ...steps.map((step, i) => ({ code: step.code, k: step.k, jt: offset(i, step.jt), jf: offset(i, step.jf) })),
    ...Object.values(returns).map((k) => ({ code: RET_K, jt: 0, jf: 0, k })),
  ];
}

/** The filter as bwrap's `--seccomp FD` reads it. */
export function keyringFilterProgram(arch: SeccompArch): Uint8Array {
  return encodeProgram(keyringFilter(arch));
}
