/**
 * The detached supervisor: `node supervisor.mjs <launch-spec.json>` (bundled to out/cli/supervisor.mjs).
 * Its stdio goes nowhere, so everything it can report goes to the status file. Exit codes:
 * 0 records written (or a standby released), 1 a record could not be written, 2 no usable launch spec.
 *
 * `node supervisor.mjs --standby <launch-spec.json>`: started ahead of its launch, so that Node's
 * start-up is paid before the launch is journaled; it reads the spec only once its launcher writes
 * a byte to its stdin (the hand-over), and ends without reading anything when stdin closes first
 * (its launcher released it, or died before handing over).
 */
import { readFileSync, unlinkSync } from 'node:fs';
import { parseJsonText } from '../../../shared/json-text';
import { closeInheritedDescriptors } from '../../sandbox/inherited-descriptors';
import { LaunchSpecSchema, type LaunchSpec } from './launch-spec';
import { supervise } from './supervise';

function readLaunchSpec(file: string | undefined): LaunchSpec | null {
  if (file === undefined) return null;
  try {
    const json = parseJsonText(readFileSync(file, 'utf8'));
    const parsed = json.ok ? LaunchSpecSchema.safeParse(json.value) : null;
    if (!parsed?.success) return null;
    // The spec holds the runtime's credentials; once read, nothing needs it on disk.
    unlinkSync(file);
    return parsed.data;
  } catch {
    return null;
  }
}

/** True once the launcher hands over (any byte on stdin), false when stdin ends or fails first. */
function handedOver(): Promise<boolean> {
  return new Promise((resolve) => {
    const settle = (go: boolean): void => {
      process.stdin.removeAllListeners();
      process.stdin.destroy();
      resolve(go);
    };
    process.stdin.once('data', () => settle(true));
    process.stdin.once('end', () => settle(false));
    process.stdin.once('error', () => settle(false));
  });
}

// What the launcher inherited must not reach the runtime (bwrap passes every open descriptor on).
closeInheritedDescriptors(2);
const standby = process.argv[2] === '--standby';
if (standby && !(await handedOver())) process.exit(0);
const spec = readLaunchSpec(process.argv[standby ? 3 : 2]);
if (spec === null) process.exit(2);
await supervise(spec).then(
  () => process.exit(0),
  () => process.exit(1),
);
