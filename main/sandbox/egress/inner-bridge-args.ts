import { socketPathProblem } from './socket-path';

/** What the sandbox-side bridge is told: `--listen <port> --socket <path> -- <command> [args…]`. */
export interface InnerBridgeArgs {
  /** Port on 127.0.0.1 inside the sandbox's own network namespace. */
  readonly listenPort: number;
  /** The host bridge's unix socket, bind-mounted into the sandbox at the same path. */
  readonly socketPath: string;
  readonly command: string;
  readonly args: readonly string[];
}

/** The arguments after `node <inner-bridge entry>`, in the one order the parser accepts. */
export function innerBridgeArgv(bridge: InnerBridgeArgs): string[] {
  return ['--listen', String(bridge.listenPort), '--socket', bridge.socketPath, '--', bridge.command, ...bridge.args];
}

export type ParsedInnerBridgeArgs = { readonly ok: true; readonly value: InnerBridgeArgs } | { readonly ok: false; readonly problem: string };

export function parseInnerBridgeArgv(argv: readonly string[]): ParsedInnerBridgeArgs {
  const [listenFlag, port, socketFlag, socketPath, separator, command, ...args] = argv;
  if (listenFlag !== '--listen' || socketFlag !== '--socket' || separator !== '--') {
    return { ok: false, problem: 'usage: inner-bridge --listen <port> --socket <path> -- <command> [args...]' };
  }
  const listenPort = /^\d{1,5}$/.test(port ?? '') ? Number(port) : Number.NaN;
  if (!(listenPort >= 1 && listenPort <= 65_535)) return { ok: false, problem: `--listen needs a port from 1 to 65535, got "${port ?? ''}"` };
  // Present whenever the `--` separator is: it comes before it.
  const socket = socketPath ?? '';
  const socketProblem = socketPathProblem(socket);
  if (socketProblem !== null) return { ok: false, problem: socketProblem };
  if (command === undefined || command === '') return { ok: false, problem: 'a command must follow --' };
  return { ok: true, value: { listenPort, socketPath: socket, command, args } };
}
