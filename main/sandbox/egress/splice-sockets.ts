import type { Socket } from 'node:net';

/**
 * Joins two connections byte for byte. Each end's FIN is passed on (the sockets must allow half-open,
 * so a client that shuts down its sending side still gets the answer); an error on either side
 * ends both.
 */
export function spliceSockets(a: Socket, b: Socket): void {
  const destroyBoth = (): void => {
    a.destroy();
    b.destroy();
  };
  a.on('error', destroyBoth);
  b.on('error', destroyBoth);
  a.pipe(b);
  b.pipe(a);
}
