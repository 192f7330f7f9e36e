import { createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { probeSessionBus, unixSocketOf } from '../../../main/evidence/keys/session-bus-probe';
import { useTempDirs } from '../../support/temp-dir';

describe('unixSocketOf', () => {
  it('finds the socket of the first unix:path= or unix:abstract= address, unescaping values', () => {
    expect(unixSocketOf('unix:path=/run/user/1000/bus')).toBe('/run/user/1000/bus');
    expect(unixSocketOf('unix:path=/tmp/dbus-x,guid=c983fe62')).toBe('/tmp/dbus-x');
    expect(unixSocketOf('unix:abstract=/tmp/dbus-abc,guid=1;unix:path=/other')).toBe('\0/tmp/dbus-abc');
    expect(unixSocketOf('unix:path=/tmp/a%20b')).toBe('/tmp/a b');
  });

  it('leaves every other address to the keychain library', () => {
    for (const address of [undefined, '', 'tcp:host=127.0.0.1,port=1', 'unix:tmpdir=/tmp', 'unix:path', 'unix:path=/tmp/%zz', 'launchd:env=X']) {
      expect(unixSocketOf(address)).toBeNull();
    }
  });
});

describe('probeSessionBus', () => {
  const tempDir = useTempDirs();
  const servers: Server[] = [];
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });

  async function busAt(onConnection: (socket: Socket) => void): Promise<string> {
    const socketPath = path.join(tempDir(), 'bus');
    const server = createServer((socket) => {
      sockets.push(socket);
      onConnection(socket);
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    return `unix:path=${socketPath},guid=0123`;
  }

  it('passes when the bus answers the first handshake line', async () => {
    let received = '';
    const address = await busAt((socket) =>
      socket.on('data', (data) => {
        received += data.toString('latin1');
        socket.write('REJECTED EXTERNAL\r\n');
      }),
    );
    await expect(probeSessionBus(address, 2000)).resolves.toBeUndefined();
    expect(received).toBe('\0AUTH\r\n');
  });

  it('fails with KEYCHAIN_UNAVAILABLE at the deadline when the bus accepts and never answers', async () => {
    const address = await busAt(() => undefined);
    const started = Date.now();
    await expect(probeSessionBus(address, 300)).rejects.toMatchObject({ code: 'KEYCHAIN_UNAVAILABLE', message: expect.stringContaining('300 ms') });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('fails at once when the socket does not exist or the bus hangs up', async () => {
    await expect(probeSessionBus(`unix:path=${path.join(tempDir(), 'none')}`, 5000)).rejects.toMatchObject({
      code: 'KEYCHAIN_UNAVAILABLE',
      details: { reason: expect.stringContaining('ENOENT') },
    });
    const address = await busAt((socket) => socket.end());
    const started = Date.now();
    await expect(probeSessionBus(address, 5000)).rejects.toMatchObject({ code: 'KEYCHAIN_UNAVAILABLE' });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('does not probe addresses it cannot read', async () => {
    await expect(probeSessionBus('tcp:host=127.0.0.1,port=1', 100)).resolves.toBeUndefined();
    await expect(probeSessionBus(undefined, 100)).resolves.toBeUndefined();
  });
});
