import { encodeProgram, JEQ_K, JSET_K, LD_W_ABS, RET_K, retErrno, SECCOMP_DATA_ARCH, SECCOMP_DATA_NR, SECCOMP_RET_ALLOW, type SockFilter } from './bpf';

/** The architectures Citadel has a syscall table for, by Node's `process.arch` name. */
export type SeccompArch = 'x64' | 'arm64';

/**
 * What every bubblewrap sandbox refuses. The kernel keyrings (add_key, request_key, keyctl) are not
 * namespaced by a user namespace: the sandbox could read the operator's session keyring (measured).
 * The rest reach into another process of the same sandbox: a tool run by the runtime took the
 * runtime's stdout with pidfd_open + pidfd_getfd and forged its whole result (issue 27); ptrace
 * and process_vm_readv/writev read and write its memory, and kcmp tells which descriptors it holds.
 */
export const DENIED_SYSCALLS = ['add_key', 'request_key', 'keyctl', 'ptrace', 'process_vm_readv', 'process_vm_writev', 'kcmp', 'pidfd_open', 'pidfd_getfd'] as const;
export type DeniedSyscall = (typeof DENIED_SYSCALLS)[number];

interface ArchTable {
  /** AUDIT_ARCH_* (linux/audit.h): what seccomp_data.arch holds for a native syscall. */
  readonly audit: number;
  readonly syscalls: Readonly<Record<DeniedSyscall, number>>;
  /** x86_64 also accepts x32 syscalls (nr | __X32_SYSCALL_BIT) under the same AUDIT_ARCH. */
  readonly x32: boolean;
}

const TABLES: Readonly<Record<SeccompArch, ArchTable>> = {
  // asm/unistd_64.h (arch/x86/entry/syscalls/syscall_64.tbl): ptrace 101, add_key 248, request_key 249,
  // keyctl 250, process_vm_readv 310, process_vm_writev 311, kcmp 312, pidfd_open 434, pidfd_getfd 438.
  x64: {
    audit: 0xc000003e,
    syscalls: { add_key: 248, request_key: 249, keyctl: 250, ptrace: 101, process_vm_readv: 310, process_vm_writev: 311, kcmp: 312, pidfd_open: 434, pidfd_getfd: 438 },
    x32: true,
  },
  // asm-generic/unistd.h, the table aarch64 uses: ptrace 117, add_key 217, request_key 218, keyctl 219,
  // process_vm_readv 270, process_vm_writev 271, kcmp 272, pidfd_open 434, pidfd_getfd 438.
  arm64: {
    audit: 0xc00000b7,
    syscalls: { add_key: 217, request_key: 218, keyctl: 219, ptrace: 117, process_vm_readv: 270, process_vm_writev: 271, kcmp: 272, pidfd_open: 434, pidfd_getfd: 438 },
    x32: false,
  },
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
 * The filter every bubblewrap sandbox runs under: each of `denied` fails with EPERM, what Docker's
 * default profile answers too, so runtimes already cope (Bun, which Claude Code is built on, falls
 * back from pidfd_open's EPERM to a waiter thread); everything else is allowed, so a nested sandbox
 * (Codex's own bwrap and seccomp) still works. x32 syscalls and every foreign architecture are
 * denied whole with ENOSYS: the only foreign ABIs a kernel accepts are its 32-bit compat ones (i386
 * through int 0x80, arm32), which no contained tool needs, and denying them whole cannot go wrong
 * the way a second syscall table could (a wrong number there would reopen a denied call).
 */
export function sandboxFilter(arch: SeccompArch, denied: readonly DeniedSyscall[] = DENIED_SYSCALLS): SockFilter[] {
  const table = TABLES[arch];
  const steps: Step[] = [
    load(SECCOMP_DATA_ARCH),
    jump(JEQ_K, table.audit, 'next', 'enosys'),
    load(SECCOMP_DATA_NR),
    ...(table.x32 ? [jump(JSET_K, X32_SYSCALL_BIT, 'enosys', 'next')] : []),
    ...denied.map((name) => jump(JEQ_K, table.syscalls[name], 'eperm', 'next')),
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
export function sandboxFilterProgram(arch: SeccompArch, denied?: readonly DeniedSyscall[]): Uint8Array {
  return encodeProgram(sandboxFilter(arch, denied));
}
