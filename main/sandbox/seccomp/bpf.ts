/**
 * Classic BPF as seccomp reads it (linux/filter.h, linux/seccomp.h): the few opcodes a syscall
 * filter needs and the 8-byte `struct sock_filter { u16 code; u8 jt; u8 jf; u32 k; }` encoding in
 * host byte order, which is little-endian on every architecture Citadel filters.
 */
export interface SockFilter {
  readonly code: number;
  readonly jt: number;
  readonly jf: number;
  readonly k: number;
}

/** BPF_LD | BPF_W | BPF_ABS: load the 32-bit word at offset k of struct seccomp_data. */
export const LD_W_ABS = 0x20;
/** BPF_JMP | BPF_JEQ | BPF_K */
export const JEQ_K = 0x15;
/** BPF_JMP | BPF_JSET | BPF_K: jump if (A & k) != 0. */
export const JSET_K = 0x45;
/** BPF_RET | BPF_K */
export const RET_K = 0x06;

/** Offsets in struct seccomp_data { int nr; u32 arch; u64 instruction_pointer; u64 args[6]; }. */
export const SECCOMP_DATA_NR = 0;
export const SECCOMP_DATA_ARCH = 4;

export const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;

/** The action that fails the syscall with `errno` instead of running it. */
export function retErrno(errno: number): number {
  return SECCOMP_RET_ERRNO | errno;
}

/** The kernel's limit on one filter (BPF_MAXINSNS). */
const MAX_INSTRUCTIONS = 4096;

export function encodeProgram(program: readonly SockFilter[]): Uint8Array {
  if (program.length === 0 || program.length > MAX_INSTRUCTIONS) throw new RangeError(`a seccomp program has 1..${MAX_INSTRUCTIONS} instructions, not ${program.length}`);
  const bytes = new Uint8Array(program.length * 8);
  const view = new DataView(bytes.buffer);
  program.forEach(({ code, jt, jf, k }, i) => {
    if (![jt, jf].every((offset) => Number.isInteger(offset) && offset >= 0 && offset <= 0xff)) throw new RangeError(`instruction ${i} jumps out of range`);
    view.setUint16(i * 8, code, true);
    view.setUint8(i * 8 + 2, jt);
    view.setUint8(i * 8 + 3, jf);
    view.setUint32(i * 8 + 4, k >>> 0, true);
  });
  return bytes;
}
