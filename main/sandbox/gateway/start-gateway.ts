import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { CitadelError } from '../../../shared/errors';
import { DEFAULT_MAX_HEAD_BYTES } from '../egress/connect-request';
import type { EgressDenialReason } from '../egress/egress-denial';
import { DEFAULT_HEAD_TIMEOUT_MS } from '../egress/host-bridge';
import { assertPrivateSocketDir } from '../egress/socket-dir';
import { socketPathProblem } from '../egress/socket-path';
import type { GatewayHandler } from './gateway-handler';
import { closeSocketServer, listenOnSocket } from '../egress/socket-server';

/**
 * Terminates TLS for a runtime that only speaks HTTPS to fixed hosts (helper B's CA and leaf
 * certificates): it takes a CONNECT the gateway's server received, refuses hosts it does not serve,
 * and feeds the decrypted requests to the handler's `handle`.
 */
export interface TlsInterception {
  handleConnect(request: IncomingMessage, socket: Duplex, head: Buffer): void;
}

export interface GatewayServerOptions {
  /** In a directory of its own only this user can enter (makeBridgeSocketPath); removed on close. */
  readonly socketPath: string;
  readonly handler: GatewayHandler;
  /** For a rule whose inside is `tls`; null or absent: CONNECT is refused. */
  readonly tls?: TlsInterception | null;
}

export interface GatewayServer {
  readonly socketPath: string;
  /** Stops listening, ends every connection (streams in flight included) and removes the socket's directory. */
  close(): Promise<void>;
}

/** Runtimes open a few connections (parallel sub-agents); more would only exhaust the supervisor's descriptors. */
const MAX_CONNECTIONS = 64;
/** A request body that never ends must not hold a provider slot for ever (answers may stream far longer). */
const REQUEST_TIMEOUT_MS = 120_000;

/** Serves the gateway on its unix socket: plain HTTP from the sandbox's inner bridge, or CONNECT handed to the TLS interception. */
export async function startGateway(options: GatewayServerOptions): Promise<GatewayServer> {
  const problem = socketPathProblem(options.socketPath);
  if (problem !== null) throw new CitadelError('INTERNAL_ERROR', problem, { details: { socket_path: options.socketPath } });
  await assertPrivateSocketDir(options.socketPath);
  const { handler } = options;
  const tls = options.tls ?? null;

  const server: Server = createServer(
    {
      maxHeaderSize: DEFAULT_MAX_HEAD_BYTES * 4,
      headersTimeout: DEFAULT_HEAD_TIMEOUT_MS,
      connectionsCheckingInterval: 1000,
      // Runtimes keep their connection to the provider open between turns: so does the gateway.
      keepAliveTimeout: 0,
      requestTimeout: REQUEST_TIMEOUT_MS,
    },
    (request, response) => handler.handle(request, response),
  );
  server.maxConnections = MAX_CONNECTIONS;
  const open = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A connection the client reset between requests is no refusal.
    if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    const reason: EgressDenialReason = error.code === 'HPE_HEADER_OVERFLOW' ? 'head_too_large' : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'head_timeout' : 'malformed_request';
    handler.refuseSocket(socket, reason);
  });
  // No runtime's recorded traffic upgrades a connection.
  server.on('upgrade', (request: IncomingMessage, socket: Duplex) => handler.refuseSocket(socket, 'upgrade_not_allowed', request));
  server.on('connect', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Without TLS termination the runtime has a base URL: no host is reached by tunnel.
    if (tls === null) handler.refuseSocket(socket, 'host_not_allowed', request);
    else tls.handleConnect(request, socket, head);
  });

  await listenOnSocket(server, options.socketPath, 'the provider gateway');
  return {
    socketPath: options.socketPath,
    close: async () => {
      await closeSocketServer(server, open, options.socketPath);
      handler.close();
    },
  };
}
