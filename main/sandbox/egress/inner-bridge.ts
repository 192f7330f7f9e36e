/**
 * The sandbox half of an executor's egress: `node inner-bridge.mjs --listen <port> --socket <path> -- <command> [args…]`.
 * It listens on 127.0.0.1:<port> inside the sandbox's own network namespace, forwards each connection to
 * the host bridge's unix socket, starts the command only once it listens, and exits with the command.
 * Node rather than a relay tool: the bridge must also start, wait for and pass on the exit of the command,
 * which a plain relay cannot do without a wrapper shell, and Node is in the sandbox for the runtimes anyway.
 * Exit: the command's code, or its signal raised again; 125 unusable arguments or port; 126/127 the
 * command could not be started (127: not found), as env(1) reports it.
 */
import { spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { constants } from 'node:os';
import { parseInnerBridgeArgv, type InnerBridgeArgs } from './inner-bridge-args';
import { spliceSockets } from './splice-sockets';

const BRIDGE_FAILED = 125;
const FORWARDED_SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT'];

function fail(code: number, problem: string): never {
  process.stderr.write(`inner-bridge: ${problem}\n`);
  process.exit(code);
}

function listen(bridge: InnerBridgeArgs): Promise<void> {
  const server = createServer({ allowHalfOpen: true }, (client) => {
    spliceSockets(client, connect({ path: bridge.socketPath, allowHalfOpen: true }));
  });
  return new Promise((resolve) => {
    server.once('error', (error) => fail(BRIDGE_FAILED, `cannot listen on 127.0.0.1:${bridge.listenPort}: ${error.message}`));
    server.listen(bridge.listenPort, '127.0.0.1', () => resolve());
  });
}

/** Exits as the command did. A signal is raised again; where that is ignored (PID 1), 128 + its number. */
function exitLike(code: number | null, signal: NodeJS.Signals | null): never {
  if (signal === null) process.exit(code ?? BRIDGE_FAILED);
  for (const forwarded of FORWARDED_SIGNALS) process.removeAllListeners(forwarded);
  process.kill(process.pid, signal);
  process.exit(128 + constants.signals[signal]);
}

const parsed = parseInnerBridgeArgv(process.argv.slice(2));
if (!parsed.ok) fail(BRIDGE_FAILED, parsed.problem);
const bridge = parsed.value;
await listen(bridge);
const child = spawn(bridge.command, [...bridge.args], { stdio: 'inherit', shell: false });
for (const signal of FORWARDED_SIGNALS) process.on(signal, () => child.kill(signal));
child.once('error', (error: NodeJS.ErrnoException) => fail(error.code === 'ENOENT' ? 127 : 126, `cannot start ${bridge.command}: ${error.message}`));
child.once('exit', exitLike);
