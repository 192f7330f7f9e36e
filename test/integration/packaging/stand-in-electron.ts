import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** @electron/fuses finds the fuse wire right after this sentinel in the Electron binary. */
const FUSE_SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX';
const FUSE_WIRE_VERSION = 1;
const FUSE_COUNT = 8;
/** The fuse states @electron/fuses writes, as bytes ('0' and '1'). */
export const FUSE_DISABLED = 0x30;
export const FUSE_ENABLED = 0x31;

/**
 * A stand-in for an unpacked Electron dist (`-c.electronDist=<dir>`): an `electron` file that is
 * not runnable but carries a real fuse wire, every fuse enabled as in a stock Electron build, so
 * the fuses electron-builder flips can be read back from the packaged binary.
 */
export function writeStandInElectronDist(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const wire = Buffer.concat([
    Buffer.from('stand-in electron binary\n'),
    Buffer.alloc(64),
    Buffer.from(FUSE_SENTINEL),
    Buffer.from([FUSE_WIRE_VERSION, FUSE_COUNT]),
    Buffer.alloc(FUSE_COUNT, FUSE_ENABLED),
    Buffer.alloc(64),
  ]);
  const binary = path.join(dir, 'electron');
  writeFileSync(binary, wire);
  chmodSync(binary, 0o755);
  writeFileSync(path.join(dir, 'LICENSE'), 'stand-in\n');
  return dir;
}
