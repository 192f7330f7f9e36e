import { describe, expect, it } from 'vitest';
import { encodeProgram, type SockFilter } from '../../../main/sandbox/seccomp/bpf';
import { sandboxFilter, sandboxFilterProgram, seccompArchOf, type SeccompArch } from '../../../main/sandbox/seccomp/sandbox-filter';

const LD_ABS = 0x20;
const JEQ = 0x15;
const JSET = 0x45;
const RET = 0x06;
const ALLOW = 0x7fff0000;
const EPERM = 0x00050001;
const ENOSYS = 0x00050026;

/**
 * A classic-BPF interpreter for the few opcodes a seccomp filter of this kind uses: runs the
 * program against one seccomp_data { nr, arch } and gives the action, as the kernel would.
 */
function run(program: readonly SockFilter[], data: { nr: number; arch: number }): number {
  let a = 0;
  for (let pc = 0; pc < program.length; ) {
    const { code, jt, jf, k } = program[pc]!;
    if (code === LD_ABS) {
      if (k === 0) a = data.nr >>> 0;
      else if (k === 4) a = data.arch >>> 0;
      else throw new Error(`load of offset ${k}`);
      pc += 1;
    } else if (code === JEQ) pc += 1 + (a === k >>> 0 ? jt : jf);
    else if (code === JSET) pc += 1 + ((a & k) !== 0 ? jt : jf);
    else if (code === RET) return k >>> 0;
    else throw new Error(`opcode ${code}`);
  }
  throw new Error('ran off the end');
}

const KEYRING = ['add_key', 'request_key', 'keyctl'];
const PROCESS_ACCESS = ['ptrace', 'process_vm_readv', 'process_vm_writev', 'kcmp', 'pidfd_open', 'pidfd_getfd'];
/** The numbers as the kernel's tables give them (x86_64: syscall_64.tbl; aarch64: asm-generic/unistd.h), written out again on purpose. */
const NUMBERS: Record<SeccompArch, Record<string, number>> = {
  x64: { add_key: 248, request_key: 249, keyctl: 250, ptrace: 101, process_vm_readv: 310, process_vm_writev: 311, kcmp: 312, pidfd_open: 434, pidfd_getfd: 438 },
  arm64: { add_key: 217, request_key: 218, keyctl: 219, ptrace: 117, process_vm_readv: 270, process_vm_writev: 271, kcmp: 272, pidfd_open: 434, pidfd_getfd: 438 },
};
// x86_64: read 0, openat 257, clone 56, unshare 272, mount 165, prctl 157, seccomp 317, clone3 435, kill 62, wait4 61,
// process_madvise 440. aarch64: read 63, openat 56, clone 220, unshare 97, mount 40, prctl 167, seccomp 277, clone3 435,
// execve 221, kill 129, wait4 260, process_madvise 440. Then each table's neighbours of the denied numbers.
const CASES: Record<SeccompArch, { audit: number; instructions: number; others: number[] }> = {
  x64: { audit: 0xc000003e, instructions: 16, others: [0, 257, 56, 272, 165, 157, 317, 435, 62, 61, 440, 247, 251, 100, 102, 309, 313, 433, 437, 439] },
  arm64: { audit: 0xc00000b7, instructions: 15, others: [63, 56, 220, 97, 40, 167, 277, 435, 221, 129, 260, 440, 216, 116, 118, 269, 273, 433, 437, 439] },
};

describe.each(Object.entries(CASES) as [SeccompArch, (typeof CASES)[SeccompArch]][])('the sandbox seccomp filter on %s', (arch, expected) => {
  const program = sandboxFilter(arch);
  const numbers = (names: string[]): number[] => names.map((name) => NUMBERS[arch][name] as number);

  it('checks the architecture first, then the syscall number', () => {
    expect(program.length).toBe(expected.instructions);
    expect(program[0]).toEqual({ code: LD_ABS, jt: 0, jf: 0, k: 4 });
    expect(program[1]).toMatchObject({ code: JEQ, k: expected.audit, jt: 0 });
    expect(program[2]).toEqual({ code: LD_ABS, jt: 0, jf: 0, k: 0 });
    expect(program.filter((step) => step.code === JEQ).map((step) => step.k)).toEqual([expected.audit, ...numbers([...KEYRING, ...PROCESS_ACCESS])]);
    expect(program.filter((step) => step.code === RET).map((step) => step.k)).toEqual([ALLOW, EPERM, ENOSYS]);
  });

  it('fails add_key, request_key, keyctl, ptrace, process_vm_readv/writev, kcmp, pidfd_open and pidfd_getfd with EPERM', () => {
    for (const name of [...KEYRING, ...PROCESS_ACCESS]) expect(run(program, { nr: NUMBERS[arch][name] as number, arch: expected.audit }), name).toBe(EPERM);
  });

  it('allows everything else a nested sandbox needs (clone, unshare, mount, prctl, seccomp) and the denied ones’ neighbours', () => {
    for (const nr of expected.others) expect(run(program, { nr, arch: expected.audit }), `syscall ${nr}`).toBe(ALLOW);
  });

  it('denies only what it is given: the keyring-only filter allows the process-access syscalls', () => {
    const keyringOnly = sandboxFilter(arch, ['add_key', 'request_key', 'keyctl']);
    for (const nr of numbers(KEYRING)) expect(run(keyringOnly, { nr, arch: expected.audit })).toBe(EPERM);
    for (const nr of numbers(PROCESS_ACCESS)) expect(run(keyringOnly, { nr, arch: expected.audit })).toBe(ALLOW);
  });

  it('denies every foreign architecture whole (i386, arm32): its key syscalls and all else', () => {
    for (const foreign of [0x40000003, 0x40000028, 0xc000003e, 0xc00000b7].filter((audit) => audit !== expected.audit)) {
      // i386: add_key 286, request_key 287, keyctl 288, ptrace 26, kcmp 349; arm32: process_vm_readv 376.
      for (const nr of [0, 26, 286, 287, 288, 309, 310, 311, 349, 376, 434, 438]) expect(run(program, { nr, arch: foreign })).toBe(ENOSYS);
    }
  });

  it('encodes as 8-byte little-endian struct sock_filter entries', () => {
    const bytes = sandboxFilterProgram(arch);
    expect(bytes.length).toBe(8 * expected.instructions);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    // The arch check: code 0x15 at byte 8, its k (the AUDIT_ARCH) little-endian at bytes 12..15.
    expect(view.getUint16(8, true)).toBe(JEQ);
    expect(view.getUint32(12, true)).toBe(expected.audit);
    const decoded = Array.from({ length: expected.instructions }, (_, i) => ({
      code: view.getUint16(i * 8, true),
      jt: view.getUint8(i * 8 + 2),
      jf: view.getUint8(i * 8 + 3),
      k: view.getUint32(i * 8 + 4, true),
    }));
    expect(decoded).toEqual(program);
  });
});

describe('the sandbox seccomp filter on x86_64 only', () => {
  it('denies x32 syscalls (nr | 0x40000000) with ENOSYS, keyctl, pidfd_getfd and x32 ptrace among them', () => {
    const program = sandboxFilter('x64');
    for (const nr of [0x40000000, 0x40000000 + 250, 0x40000000 + 438, 0x40000000 + 521]) expect(run(program, { nr, arch: 0xc000003e })).toBe(ENOSYS);
  });
});

describe('seccomp architecture and encoding', () => {
  it('has a table for x64 and arm64 only', () => {
    expect(seccompArchOf('x64')).toBe('x64');
    expect(seccompArchOf('arm64')).toBe('arm64');
    for (const other of ['ia32', 'arm', 'riscv64', 'ppc64', 's390x', 'toString']) expect(seccompArchOf(other)).toBeNull();
  });

  it('refuses an empty program and a jump out of range', () => {
    expect(() => encodeProgram([])).toThrow(RangeError);
    expect(() => encodeProgram([{ code: JEQ, jt: 256, jf: 0, k: 0 }])).toThrow(RangeError);
  });
});
