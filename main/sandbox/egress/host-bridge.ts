import { connect as netConnect, createServer, type Server, type Socket } from 'node:net';
import { CitadelError } from '../../../shared/errors';
import { zodViolations } from '../../../shared/zod-violations';
import { DEFAULT_MAX_HEAD_BYTES, DENIAL_STATUS, judgeRequestHead, readRequestHead } from './connect-request';
import { EgressRuleSchema } from '../../../shared/sandbox/containment-policy';
import type { EgressDenial } from './egress-denial';
import type { EgressTarget } from './egress-target';
import { loopbackRoutesOf } from './loopback-routes';
import { providerProxy } from './provider-proxy';
import { assertPrivateSocketDir } from './socket-dir';
import { socketPathProblem } from './socket-path';
import { spliceSockets } from './splice-sockets';
import { closeSocketServer, listenOnSocket } from './socket-server';

/** A client gets this long to send its whole request head (CONNECT, or a request to a local provider). */
export const DEFAULT_HEAD_TIMEOUT_MS = 10_000;

/** Opens the host-side connection for an allowed request; it must allow half-open, as net.connect can. */
export type EgressConnector = (host: string, port: number) => Socket;

export interface HostBridgeOptions {
  /**
   * The unix socket the sandbox's inner bridge connects to, in a directory of its own that only
   * this user can enter (makeBridgeSocketPath): checked before listening, removed once closed.
   */
  readonly socketPath: string;
  /** The rule alone: a launch's egress carries its socket path too, which goes in `socketPath`. */
  readonly target: EgressTarget;
  readonly onDenial?: (denial: EgressDenial) => void;
  /** Tests inject one so that no real host is ever reached; the default connects for real. */
  readonly connect?: EgressConnector;
  readonly maxHeadBytes?: number;
  readonly headTimeoutMs?: number;
}

export interface HostBridge {
  readonly socketPath: string;
  /** Stops listening and ends every open connection, tunnels included. */
  close(): Promise<void>;
}

const connectForReal: EgressConnector = (host, port) => netConnect({ host, port, allowHalfOpen: true });

interface ConnectPolicy {
  readonly allowedHosts: ReadonlySet<string>;
  readonly connect: EgressConnector;
  readonly onDenial: (denial: EgressDenial) => void;
  readonly maxHeadBytes: number;
  readonly headTimeoutMs: number;
  readonly track: (socket: Socket) => void;
}

/**
 * The host half of an executor's egress (issue #11, item 3): a unix socket that is either an HTTP
 * reverse proxy to the one local provider passing on only its routes (providerProxy), or a CONNECT
 * proxy that tunnels only to the cloud runtime's API hosts on port 443.
 */
export async function startHostBridge(options: HostBridgeOptions): Promise<HostBridge> {
  const parsed = EgressRuleSchema.safeParse(options.target);
  if (!parsed.success) {
    throw new CitadelError('INTERNAL_ERROR', 'the egress target is invalid', { violations: zodViolations(parsed.error.issues, ['target'], options.target) });
  }
  if (parsed.data.kind === 'none') throw new CitadelError('INTERNAL_ERROR', 'an egress of "none" has no bridge');
  // A gateway holds a credential and witnesses the wire: it is served by startGateway, never as a plain bridge.
  if (parsed.data.kind === 'gateway') throw new CitadelError('INTERNAL_ERROR', 'a provider gateway is not served by the host bridge');
  const socketProblem = socketPathProblem(options.socketPath);
  if (socketProblem !== null) throw new CitadelError('INTERNAL_ERROR', socketProblem, { details: { socket_path: options.socketPath } });
  await assertPrivateSocketDir(options.socketPath);
  const target = parsed.data;
  const connect = options.connect ?? connectForReal;
  const open = new Set<Socket>();
  const track = (socket: Socket): void => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  };
  const policy: ConnectPolicy = {
    allowedHosts: new Set(target.kind === 'cloud' ? target.hosts : []),
    connect,
    onDenial: options.onDenial ?? (() => undefined),
    maxHeadBytes: options.maxHeadBytes ?? DEFAULT_MAX_HEAD_BYTES,
    headTimeoutMs: options.headTimeoutMs ?? DEFAULT_HEAD_TIMEOUT_MS,
    track,
  };

  const server: Server =
    target.kind === 'loopback'
      ? providerProxy({ ...policy, host: target.host, port: target.port, routes: loopbackRoutesOf(target), connect: () => connect(target.host, target.port) })
      : createServer({ allowHalfOpen: true }, (client) => serveConnect(client, policy));
  server.on('connection', track);
  await listenOnSocket(server, options.socketPath, 'the egress bridge');
  return { socketPath: options.socketPath, close: () => closeSocketServer(server, open, options.socketPath) };
}

/** Reads one bounded CONNECT head, then either tunnels to the allowed host or answers the refusal. */
function serveConnect(client: Socket, policy: ConnectPolicy): void {
  let received = Buffer.alloc(0);
  let headRead = false;
  const stopReading = (): void => {
    headRead = true;
    clearTimeout(timer);
    client.removeListener('data', onData);
  };
  const refuse = (denial: EgressDenial): void => {
    stopReading();
    client.end(`HTTP/1.1 ${DENIAL_STATUS[denial.reason]}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`, () => client.destroy());
    policy.onDenial(denial);
  };
  const timer = setTimeout(() => refuse({ host: null, port: null, reason: 'head_timeout' }), policy.headTimeoutMs);
  const onData = (chunk: Buffer): void => {
    received = Buffer.concat([received, chunk]);
    const read = readRequestHead(received, policy.maxHeadBytes);
    if (read.state === 'incomplete') return;
    if (read.state === 'too_large') return refuse({ host: null, port: null, reason: 'head_too_large' });
    const verdict = judgeRequestHead(read.head, policy.allowedHosts);
    if (!verdict.allowed) return refuse(verdict.denial);
    stopReading();
    client.pause();
    openTunnel(client, verdict.host, verdict.port, read.rest, policy);
  };
  client.on('data', onData);
  client.on('error', () => client.destroy());
  // A client that stops sending before its head is complete has nothing more to get.
  client.once('end', () => {
    if (!headRead) client.destroy();
  });
  client.once('close', () => clearTimeout(timer));
}

function openTunnel(client: Socket, host: string, port: number, early: Buffer, policy: ConnectPolicy): void {
  const upstream = policy.connect(host, port);
  policy.track(upstream);
  let connected = false;
  const abandon = (): void => {
    if (!connected) upstream.destroy();
  };
  client.once('close', abandon);
  upstream.once('error', () => {
    if (!connected) client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n', () => client.destroy());
  });
  upstream.once('connect', () => {
    connected = true;
    client.removeListener('close', abandon);
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (early.length > 0) upstream.write(early);
    spliceSockets(client, upstream);
  });
}
