import { createConnection } from 'node:net';
import { CitadelError } from '../../../shared/errors';

/**
 * Checks that the D-Bus session bus answers, within a deadline, before the keychain library
 * connects to it. The library connects synchronously on the main thread, and a bus that accepts
 * the connection but never answers blocked it for minutes (measured): no timer can interrupt
 * that, so this asynchronous probe runs first. Any reply to a bare `AUTH` (the bus lists its
 * mechanisms) means the bus is alive. Addresses other than a unix socket are left to the library.
 */
export function probeSessionBus(address: string | undefined, timeoutMs: number): Promise<void> {
  const socketPath = unixSocketOf(address);
  if (socketPath === null) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const socket = createConnection({ path: socketPath });
    const finish = (why: string | null): void => {
      clearTimeout(timer);
      socket.destroy();
      if (why === null) resolve();
      else reject(new CitadelError('KEYCHAIN_UNAVAILABLE', `the D-Bus session bus ${why}`, { details: { bus_address: address ?? null, reason: why } }));
    };
    const timer = setTimeout(() => finish(`did not answer within ${timeoutMs} ms`), timeoutMs);
    socket.once('connect', () => socket.write('\0AUTH\r\n'));
    socket.once('data', () => finish(null));
    socket.once('error', (error: NodeJS.ErrnoException) => finish(`is unreachable (${error.code ?? error.message})`));
    socket.once('end', () => finish('closed the connection'));
  });
}

/** The socket of the first address when it is `unix:path=` or `unix:abstract=` (Linux abstract namespace). */
export function unixSocketOf(address: string | undefined): string | null {
  const first = address?.split(';')[0];
  if (first === undefined || !first.startsWith('unix:')) return null;
  const params = new Map<string, string>();
  for (const pair of first.slice('unix:'.length).split(',')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) return null;
    try {
      params.set(pair.slice(0, eq), decodeURIComponent(pair.slice(eq + 1)));
    } catch {
      return null;
    }
  }
  const path = params.get('path');
  if (path !== undefined) return path;
  const abstract = params.get('abstract');
  return abstract === undefined ? null : `\0${abstract}`;
}
