// `npm run bench`: runs every test/bench/*.bench.mjs against the built CLI and prints one line per
// benchmark on stdout: name, measured values, ratio, target, OK or MISSED. Progress and per-round
// details go to stderr.
//
// Speed and memory targets are checked here, by ratios, not by timed tests (a timed test flakes on
// a busy machine; a ratio of two measurements taken side by side does not drift with the machine).
// A missed target still exits 1: a regression must be visible to whoever (or whatever CI job) runs
// the benchmarks, not only readable in the output. A benchmark that cannot run at all exits 2.
//
// Usage: npm run build && node test/bench/run.mjs [name-substring ...]

import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');
const filters = process.argv.slice(2);
const log = (line) => process.stderr.write(`${line}\n`);

warnIfBuildIsStale();

const files = readdirSync(here)
  .filter((file) => file.endsWith('.bench.mjs'))
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
  .sort();
if (files.length === 0) {
  log(`no benchmark matches ${filters.join(' ')}`);
  process.exit(2);
}

let exitCode = 0;
for (const file of files) {
  const bench = await import(pathToFileURL(path.join(here, file)).href);
  const started = Date.now();
  log(`${bench.name}: running (${file})`);
  try {
    const result = await bench.run({ log });
    process.stdout.write(`${formatResult(result)}\n`);
    if (!result.ok) exitCode = Math.max(exitCode, 1);
  } catch (error) {
    process.stdout.write(`${bench.name}: ERROR ${error instanceof Error ? error.message : String(error)}\n`);
    exitCode = 2;
  }
  log(`${bench.name}: done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
process.exitCode = exitCode;

/** e.g. `fork-start-vs-worktree-add: citadel 1.84 s, git worktree add x4 1.61 s, ratio 1.14 (target <= 1.25) OK` */
function formatResult(result) {
  const values = result.measurements.map((m) => `${m.label} ${m.seconds.toFixed(2)} s`).join(', ');
  return `${result.name}: ${values}, ratio ${result.ratio.toFixed(2)} (target ${result.target.op} ${result.target.value.toFixed(2)}) ${result.ok ? 'OK' : 'MISSED'}`;
}

/** The benchmarks drive out/cli; measuring a build older than the sources measures the wrong code. */
function warnIfBuildIsStale() {
  const built = path.join(repoRoot, 'out', 'cli', 'citadel.mjs');
  let builtAt;
  try {
    builtAt = statSync(built).mtimeMs;
  } catch {
    return; // each benchmark reports the missing build itself
  }
  const newer = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts') && statSync(full).mtimeMs > builtAt) newer.push(path.relative(repoRoot, full));
    }
  };
  for (const dir of ['main', 'shared']) walk(path.join(repoRoot, dir));
  if (newer.length > 0) log(`warning: out/cli is older than ${newer.length} source file(s) (e.g. ${newer[0]}); run \`npm run build\` first`);
}
