import type { Server } from 'node:http';
import type { Server as NetServer, Socket } from 'node:net';
import { CitadelError } from '../../../shared/errors';
import { removeSocketDir } from './socket-dir';

/**
 * Listens on a checked private socket path (its directory is ours: an empty one made for this socket
 * goes with a failure, named `what` in the error). After listening, an error concerns one accepted
 * connection only, and that socket reports it itself.
 */
export async function listenOnSocket(server: Server | NetServer, socketPath: string, what: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', (cause) => {
      void removeSocketDir(socketPath).finally(() => reject(new CitadelError('INTERNAL_ERROR', `${what} cannot listen on ${socketPath}`, { cause })));
    });
    server.listen(socketPath, () => resolve());
  });
  server.on('error', () => undefined);
}

/** Stops listening, ends every open connection (tunnels included), and removes the socket's directory. */
export async function closeSocketServer(server: Server | NetServer, open: ReadonlySet<Socket>, socketPath: string): Promise<void> {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    for (const socket of open) socket.destroy();
  });
  await removeSocketDir(socketPath);
}
