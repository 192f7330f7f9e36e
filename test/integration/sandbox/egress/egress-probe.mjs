// Run inside (and, as the control, outside) the sandbox: tries each check given as JSON in argv[2]
// and prints one JSON array of outcomes. Plain ESM so that it needs nothing but node.
import { request } from 'node:http';
import { connect } from 'node:net';

function httpGet(port) {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/', timeout: 3000 }, (response) => {
      let body = '';
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve({ ok: true, body }));
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('timed out'), { code: 'TIMEOUT' })));
    req.on('error', (error) => resolve({ ok: false, code: error.code }));
    req.end();
  });
}

/** CONNECT through HTTPS_PROXY; through an open tunnel, either one HTTP/1.0 GET or (hold) wait for its end. */
function viaProxy(target, hold) {
  return new Promise((resolve) => {
    const proxy = new URL(process.env.HTTPS_PROXY);
    const socket = connect({ host: proxy.hostname, port: Number(proxy.port) });
    let received = '';
    let status = null;
    socket.on('error', (error) => resolve({ ok: false, code: error.code, status }));
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      if (status !== null || !received.includes('\r\n\r\n')) return;
      status = Number(received.split(' ')[1]);
      received = received.slice(received.indexOf('\r\n\r\n') + 4);
      if (status !== 200) return;
      if (hold) process.stdout.write('tunnel-open\n');
      else socket.write('GET / HTTP/1.0\r\nHost: upstream\r\n\r\n');
    });
    socket.on('close', () => resolve({ ok: status === 200, status, body: received.slice(received.indexOf('\r\n\r\n') + 4) }));
    socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
  });
}

const results = [];
for (const check of JSON.parse(process.argv[2])) {
  results.push(check.http !== undefined ? await httpGet(check.http) : await viaProxy(check.connect, check.hold === true));
}
process.stdout.write(`${JSON.stringify(results)}\n`);
