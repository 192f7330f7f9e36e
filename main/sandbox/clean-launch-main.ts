/**
 * `node sandbox-clean-launch.mjs <n> -- <command> [args…]` (bundled to out/cli/): starts a
 * contained launch with only descriptors 0, 1, 2 and the launch's own n fds (3 …) open, for a
 * host that cannot close what it inherited itself (the CLI's or the desktop app's own process
 * runs the contained verifier). It stays in the launch's process group and ends as the launch
 * ends: same exit code, or the same signal. Exit 125: bad usage; 127: the launch could not start.
 */
import { spawn } from 'node:child_process';
import { closeInheritedDescriptors } from './inherited-descriptors';

const [countArg, separator, command, ...args] = process.argv.slice(2);
const count = Number(countArg);
if (!Number.isInteger(count) || count < 0 || count > 8 || separator !== '--' || command === undefined) {
  process.stderr.write('usage: sandbox-clean-launch <fd count> -- <command> [args...]\n');
  process.exit(125);
}
closeInheritedDescriptors(2 + count);
const child = spawn(command, args, { stdio: Array.from({ length: 3 + count }, (_, fd) => fd), shell: false });
child.once('error', () => process.exit(127));
child.once('exit', (code, signal) => {
  if (signal !== null) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});
