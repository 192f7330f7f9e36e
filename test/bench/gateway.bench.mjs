// Benchmark: a streamed model answer through the provider gateway (issue 28) against the same answer
// straight from the provider, in one run.
//
// Issue 28 target: the gateway costs at most 1.1x, on the time to the first byte and on the total.
// The provider is a scripted loopback server answering Claude Code's recorded request (88 KB of
// JSON, test/fixtures/gateway) with an Anthropic SSE stream as a fast provider sends it: the first
// event after FIRST_EVENT_MS, then DELTAS text deltas DELTA_MS apart. The gateway side is the real
// handler and unix-socket server (bundled on the fly with esbuild) doing all it does per request:
// route and placeholder checks, reading and checking the body, the credential swap, the forward on
// a kept-alive connection, and the witness reading the stream. The two sides alternate, in
// alternating order; the medians are compared.
//
// Environment knobs: CITADEL_BENCH_ROUNDS (rounds per side, default 20).

import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export const name = 'gateway-stream-vs-direct';
const TARGET_RATIO = 1.1;
const FIRST_EVENT_MS = 25;
const DELTAS = 100;
const DELTA_MS = 1;
const PLACEHOLDER = 'citadel-bench-placeholder-0123456789abcdef0123456789';

const sse = (event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;

/** The scripted provider: reads the request, then streams the answer with a fast provider's pacing. */
async function startProvider() {
  const server = createServer((incoming, response) => {
    incoming.resume();
    incoming.on('end', async () => {
      await sleep(FIRST_EVENT_MS);
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(sse({ type: 'message_start', message: { id: 'msg_bench', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [], usage: { input_tokens: 20_000, output_tokens: 1 } } }));
      response.write(sse({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }));
      for (let i = 0; i < DELTAS; i += 1) {
        await sleep(DELTA_MS);
        response.write(sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: `token ${i} of a streamed answer; ` } }));
      }
      response.write(sse({ type: 'content_block_stop', index: 0 }));
      response.write(sse({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: DELTAS } }));
      response.end(sse({ type: 'message_stop' }));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** One request; resolves with seconds to the first body byte and to the end. */
function timedCall(target, headers, body) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    let firstByte = null;
    const sent = request({ ...target, method: 'POST', path: '/v1/messages?beta=true', headers: { ...headers, 'content-length': body.length } }, (answer) => {
      if (answer.statusCode !== 200) reject(new Error(`status ${answer.statusCode}`));
      answer.on('data', () => {
        firstByte ??= process.hrtime.bigint();
      });
      answer.on('end', () => resolve({ firstByte: Number(firstByte - started) / 1e9, total: Number(process.hrtime.bigint() - started) / 1e9 }));
      answer.on('error', reject);
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export async function run({ log = (line) => process.stderr.write(`${line}\n`) } = {}) {
  const rounds = Number(process.env.CITADEL_BENCH_ROUNDS ?? 20);
  const entry = path.join(repoRoot, 'out', 'bench', `gateway-entry-${process.pid}.ts`);
  const bundle = path.join(repoRoot, 'out', 'bench', `gateway-${process.pid}.mjs`);
  mkdirSync(path.dirname(bundle), { recursive: true });
  writeFileSync(
    entry,
    [
      `export { createGatewayHandler } from ${JSON.stringify(path.join(repoRoot, 'main/sandbox/gateway/gateway-handler.ts'))};`,
      `export { startGateway } from ${JSON.stringify(path.join(repoRoot, 'main/sandbox/gateway/start-gateway.ts'))};`,
      `export { makeBridgeSocketPath } from ${JSON.stringify(path.join(repoRoot, 'main/sandbox/egress/socket-dir.ts'))};`,
    ].join('\n'),
  );
  const provider = await startProvider();
  let gateway = null;
  try {
    await build({ entryPoints: [entry], outfile: bundle, bundle: true, platform: 'node', format: 'esm', packages: 'external', absWorkingDir: repoRoot, nodePaths: [path.join(repoRoot, 'node_modules')], logLevel: 'error' });
    const { createGatewayHandler, startGateway, makeBridgeSocketPath } = await import(pathToFileURL(bundle).href);
    const recorded = JSON.parse(readFileSync(path.join(repoRoot, 'test/fixtures/gateway/claude-a_text.json'), 'utf8'));
    const body = Buffer.from(JSON.stringify(recorded.body));
    const headers = Object.fromEntries(Object.entries(recorded.headers).filter(([key]) => key !== 'host' && key !== 'content-length' && key !== 'connection'));
    headers['x-api-key'] = PLACEHOLDER;
    const port = provider.address().port;
    const exchanges = [];
    const handler = createGatewayHandler({
      rule: { kind: 'gateway', api: 'anthropic-messages', inside: { kind: 'http', port: 18080 }, upstream: `http://127.0.0.1:${port}`, routes: [{ method: 'POST', path: '/v1/messages' }], models: ['claude-sonnet-4-5'] },
      placeholder: PLACEHOLDER,
      credential: { headers: () => Promise.resolve({ 'x-api-key': 'sk-ant-bench-real' }) },
      budgetTokens: null,
      onExchange: (exchange) => exchanges.push(exchange),
      onDenial: (denial) => {
        throw new Error(`the gateway refused the bench request: ${denial.reason}`);
      },
      onBudgetExceeded: () => undefined,
      onCredentialFailed: () => undefined,
    });
    gateway = await startGateway({ socketPath: await makeBridgeSocketPath(), handler });
    // A new client connection per request on both sides; the gateway's own to the provider is kept alive, as it runs.
    const direct = () => timedCall({ host: '127.0.0.1', port, agent: false }, headers, body);
    const through = () => timedCall({ socketPath: gateway.socketPath, agent: false }, headers, body);

    await direct();
    await through(); // warm-up: the JIT and the gateway's upstream connection
    const sides = { direct: [], gateway: [] };
    for (let round = 0; round < rounds; round += 1) {
      const order = round % 2 === 0 ? ['direct', 'gateway'] : ['gateway', 'direct'];
      for (const side of order) sides[side].push(await (side === 'direct' ? direct() : through()));
    }
    if (exchanges.some((exchange) => exchange.outcome !== 'completed' || exchange.served_model !== 'claude-sonnet-4-5-20250929')) throw new Error('the gateway did not witness every stream as completed');
    const first = { direct: median(sides.direct.map((m) => m.firstByte)), gateway: median(sides.gateway.map((m) => m.firstByte)) };
    const total = { direct: median(sides.direct.map((m) => m.total)), gateway: median(sides.gateway.map((m) => m.total)) };
    const firstRatio = first.gateway / first.direct;
    const totalRatio = total.gateway / total.direct;
    log(`  ${name}: first byte ratio ${firstRatio.toFixed(3)} (${(first.gateway * 1000).toFixed(1)} vs ${(first.direct * 1000).toFixed(1)} ms), total ratio ${totalRatio.toFixed(3)} (${(total.gateway * 1000).toFixed(1)} vs ${(total.direct * 1000).toFixed(1)} ms), ${rounds} rounds`);
    const ratio = Math.max(firstRatio, totalRatio);
    return {
      name,
      measurements: [
        { label: 'first byte direct', seconds: first.direct },
        { label: `first byte via gateway (x${firstRatio.toFixed(2)})`, seconds: first.gateway },
        { label: 'total direct', seconds: total.direct },
        { label: `total via gateway (x${totalRatio.toFixed(2)})`, seconds: total.gateway },
      ],
      ratio,
      target: { op: '<=', value: TARGET_RATIO },
      ok: ratio <= TARGET_RATIO,
    };
  } finally {
    await gateway?.close();
    provider.closeAllConnections();
    await new Promise((resolve) => provider.close(resolve));
    rmSync(entry, { force: true });
    rmSync(bundle, { force: true });
  }
}
