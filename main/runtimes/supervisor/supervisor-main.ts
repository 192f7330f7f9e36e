/**
 * The detached supervisor: `node supervisor.mjs <launch-spec.json>` (bundled to out/cli/supervisor.mjs).
 * Its stdio goes nowhere, so everything it can report goes to the status file. Exit codes:
 * 0 records written, 1 a record could not be written, 2 no usable launch spec.
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

// What the launcher inherited must not reach the runtime (bwrap passes every open descriptor on).
closeInheritedDescriptors(2);
const spec = readLaunchSpec(process.argv[2]);
if (spec === null) process.exit(2);
await supervise(spec).then(
  () => process.exit(0),
  () => process.exit(1),
);
