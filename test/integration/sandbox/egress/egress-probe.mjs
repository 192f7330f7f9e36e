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

/**
 * One HTTP request to 127.0.0.1:<port> (a local provider's API call); with `release`, a GET of that
 * path goes out on another connection as soon as the first piece of the answer is in, so that a
 * provider holding back the rest until then proves the answer streams rather than arrives whole.
 */
function httpRequest({ port, method, path, body, release }) {
  return new Promise((resolve) => {
    const headers = body === undefined ? {} : { 'content-type': 'application/json', accept: 'text/event-stream' };
    const req = request({ host: '127.0.0.1', port, method, path, headers, timeout: 10_000 }, (response) => {
      let text = '';
      let released = release === undefined;
      response.setEncoding('utf8');
      response.on('data', (chunk) => {
        text += chunk;
        if (released) return;
        released = true;
        request({ host: '127.0.0.1', port, path: release }, (answer) => answer.resume()).end();
      });
      response.on('end', () => resolve({ status: response.statusCode, body: text }));
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('timed out'), { code: 'TIMEOUT' })));
    req.on('error', (error) => resolve({ ok: false, code: error.code }));
    req.end(body);
  });
}

const results = [];
for (const check of JSON.parse(process.argv[2])) {
  if (check.request !== undefined) results.push(await httpRequest(check.request));
  else results.push(check.http !== undefined ? await httpGet(check.http) : await viaProxy(check.connect, check.hold === true));
}
process.stdout.write(`${JSON.stringify(results)}\n`);
