// Issue 14 acceptance: the Forks view's first render of 1,000 forks in Chromium, as a ratio to
// rendering the same rows from a static JSON file. Target: at most 1.5.
//
// Both sides load a page from the same loopback origin in a fresh browser context, interleaved
// round by round, and each measures in the page, from navigation start, the first animation frame
// after its table holds all 1,000 rows; the medians are compared.
// - Citadel: the built renderer (the production Vite build, as the e2e test serves it) from the real
//   web host over the real Mission Control service, with 1,000 synthetic forks on disk. Its
//   listForks calls are answered with the JSON file: the real host's own answer, captured once. So
//   both sides render the same rows from the same bytes, and what is compared is the app's start and
//   the view's render (how fast the host lists forks is web-list's benchmark).
// - static: one HTML page with the app's own stylesheet that fetches the same file and builds the
//   same table (title link, demo badge, fork id, repository, state badge, branch chips, receipts,
//   age with its absolute time) with one innerHTML.

import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { writeSyntheticForks } from './synthetic-forks.mjs';

export const name = 'forks-view-first-render-1000-vs-static-json';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const TARGET = 1.5;
const FORKS = 1000;
const ROUNDS = 9;
const WARMUP = 2;

// Runs in each page before its own scripts: the first frame after the table holds every row.
const PROBE = `(() => {
  let done = false;
  const check = () => {
    if (done || document.querySelectorAll('table.forks tbody tr').length < ${FORKS}) return;
    done = true;
    requestAnimationFrame(() => (window.__rendered = performance.now()));
  };
  new MutationObserver(check).observe(document, { childList: true, subtree: true });
})();`;

export async function run({ log = (line) => process.stderr.write(`${line}\n`) } = {}) {
  const work = mkdtempSync(path.join(tmpdir(), 'citadel-bench-forks-render-'));
  const bundle = path.join(repoRoot, 'out', 'bench', `forks-render-${process.pid}.mjs`);
  let host = null;
  let browser = null;
  try {
    const home = path.join(work, 'root');
    const entry = path.join(work, 'entry.ts');
    const exports = {
      'main/web/web-host.ts': 'startWebHost',
      'main/mission-control/service.ts': 'createMissionControlService',
      'main/host/open-context.ts': 'openOrchestratorContext',
      'shared/fork/fork-record.ts': 'ForkRecordSchema',
      'shared/fork/contract.ts': 'ContractV1Schema, ContractV2Schema',
      'shared/digest.ts': 'digestOf',
      'test/support/build-renderer.ts': 'buildRenderer',
      'test/support/chromium.ts': 'launchChromium',
    };
    writeFileSync(entry, Object.entries(exports).map(([file, names]) => `export { ${names} } from ${JSON.stringify(path.join(repoRoot, file))};`).join('\n'));
    await build({ entryPoints: [entry], outfile: bundle, bundle: true, platform: 'node', format: 'esm', packages: 'external', absWorkingDir: repoRoot, nodePaths: [path.join(repoRoot, 'node_modules')], logLevel: 'error' });
    const m = await import(pathToFileURL(bundle).href);
    const contractSchema = (record) => (record.schema_version === 1 ? m.ContractV1Schema : m.ContractV2Schema);

    log(`  ${name}: building the renderer and writing ${FORKS} forks`);
    const staticDir = await m.buildRenderer(path.join(work, 'renderer'));
    mkdirSync(path.join(home, 'forks'), { recursive: true });
    writeSyntheticForks(path.join(home, 'forks'), FORKS, { ForkRecordSchema: m.ForkRecordSchema, contractSchema, digestOf: m.digestOf });
    const stylesheet = readdirSync(path.join(staticDir, 'assets')).find((file) => file.startsWith('index-') && file.endsWith('.css'));
    if (stylesheet === undefined) throw new Error('the renderer build has no stylesheet');

    const env = { ...process.env, CITADEL_HOME: home, CITADEL_KEYSTORE: 'file', CITADEL_ISSUER: 'bench' };
    const ctx = await m.openOrchestratorContext({ env });
    host = await m.startWebHost({ service: m.createMissionControlService(ctx, { log: () => undefined }), port: 0, staticDir });
    const origin = new URL(host.url).origin;
    const listed = await fetch(`${origin}/api/call/listForks`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-citadel-token': host.token }, body: '{"state":null}' });
    const listJson = await listed.text();
    const reply = JSON.parse(listJson);
    if (!reply.ok || reply.value.forks.length !== FORKS) throw new Error(`listForks did not list ${FORKS} forks: ${listJson.slice(0, 300)}`);
    if (reply.value.forks.some((f) => f.title === null || f.repo_name === null)) throw new Error('listForks listed a fork without its title or repository');

    browser = await m.launchChromium();
    const load = async (url, routes) => {
      const context = await browser.newContext();
      try {
        await context.addInitScript(PROBE);
        for (const [pattern, body, type] of routes) await context.route(pattern, (route) => route.fulfill({ status: 200, contentType: type, body }));
        const page = await context.newPage();
        await page.goto(url, { waitUntil: 'commit' });
        await page.waitForFunction(() => globalThis.__rendered !== undefined, null, { timeout: 60_000 });
        return (await page.evaluate(() => globalThis.__rendered)) / 1000;
      } finally {
        await context.close();
      }
    };
    const citadel = () => load(host.url, [[`${origin}/api/call/listForks`, listJson, 'application/json']]);
    const baseline = () =>
      load(`${origin}/bench-static.html`, [
        [`${origin}/bench-static.html`, staticPage(`/assets/${stylesheet}`), 'text/html'],
        [`${origin}/bench-forks.json`, listJson, 'application/json'],
      ]);

    for (let i = 0; i < WARMUP; i++) {
      await citadel();
      await baseline();
    }
    const citadelTimes = [];
    const staticTimes = [];
    for (let i = 0; i < ROUNDS; i++) {
      const order = i % 2 === 0 ? [[citadel, citadelTimes], [baseline, staticTimes]] : [[baseline, staticTimes], [citadel, citadelTimes]];
      for (const [fn, times] of order) times.push(await fn());
      log(`  ${name}: round ${i + 1}: Forks view ${(citadelTimes.at(-1) * 1000).toFixed(1)} ms, static ${(staticTimes.at(-1) * 1000).toFixed(1)} ms`);
    }
    const a = median(citadelTimes);
    const b = median(staticTimes);
    return {
      name,
      measurements: [
        { label: `Forks view first render (${FORKS} forks)`, seconds: a },
        { label: 'the same rows from a static JSON file', seconds: b },
      ],
      ratio: a / b,
      target: { op: '<=', value: TARGET },
      ok: a / b <= TARGET,
    };
  } finally {
    await browser?.close();
    if (host !== null) await host.close();
    rmSync(work, { recursive: true, force: true });
    rmSync(bundle, { force: true });
  }
}

/** The baseline: the same columns, built in one pass from the JSON file, newest first. */
function staticPage(stylesheet) {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>static fork list</title><link rel="stylesheet" href="${stylesheet}"></head>
<body><main><h1>Forks</h1>
<table class="forks"><thead><tr><th>Fork</th><th>Repository</th><th>State</th><th>Branches</th><th>Verified receipts</th><th>Created</th></tr></thead><tbody></tbody></table>
</main>
<script>
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
const time = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const age = (iso, now) => { const m = Math.floor((now - Date.parse(iso)) / 60000); return m < 60 ? m + ' min ago' : m < 1440 ? Math.floor(m / 60) + ' h ago' : time.format(new Date(iso)); };
fetch('/bench-forks.json').then((r) => r.json()).then((reply) => {
  const now = Date.now();
  const forks = [...reply.value.forks].sort((a, b) => (a.created_at < b.created_at ? 1 : -1));
  let html = '';
  for (const f of forks) {
    const chips = f.branches.map((b) => '<li class="badge">' + esc(b.profile_id) + ' ' + esc(b.state) + (b.failure_code ? ': ' + esc(b.failure_code) : '') + '</li>').join('');
    html += '<tr><td><a href="#/fork/' + esc(f.fork_id) + '">' + esc(f.title) + '</a>' + (f.demo ? ' <span class="badge">[demo]</span>' : '') + '<br><code>' + esc(f.fork_id) + '</code></td>'
      + '<td>' + esc(f.repo_name) + '</td><td><span class="badge">' + esc(f.state) + '</span></td><td><ul class="chips">' + chips + '</ul></td>'
      + '<td><span class="muted">unknown</span></td><td><time datetime="' + esc(f.created_at) + '" title="' + esc(time.format(new Date(f.created_at))) + '">' + esc(age(f.created_at, now)) + '</time></td></tr>';
  }
  document.querySelector('tbody').innerHTML = html;
});
</script></body></html>
`;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
