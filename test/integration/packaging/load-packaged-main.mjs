// Runs under plain Node: loads an extracted packaged app's main bundle with `electron` replaced by a
// stub, so every other import must resolve from the app itself. Usage:
//   node load-packaged-main.mjs <app dir> <electron names, comma-separated> <native externals, comma-separated>
// Prints one JSON line: the stub calls the bundle's top-level code made, the chunks loaded and, per
// native external, the keys of what loading it returned.
import { existsSync, readdirSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [appDir = '', electronNames = '', nativeExternals = ''] = process.argv.slice(2);
const mainDir = path.join(appDir, 'out', 'main');
const mainFile = path.join(mainDir, 'main.js');

// Every property is a function; the app declines the single-instance lock, so main's top-level code
// takes its quit path without opening a window, after all its imports were evaluated.
const stub = `
const calls = (globalThis.__electronStubCalls ??= []);
const object = (name) => new Proxy(function () {}, {
  get: (_, key) => key === 'then' ? undefined : (...args) => {
    calls.push(name + '.' + String(key));
    return key === 'requestSingleInstanceLock' ? false : undefined;
  },
});
${electronNames.split(',').map((name) => `export const ${name} = object(${JSON.stringify(name)});`).join('\n')}
`;
const stubUrl = `data:text/javascript,${encodeURIComponent(stub)}`;
const hooks = `export async function resolve(specifier, context, next) {
  return specifier === 'electron' ? { url: ${JSON.stringify(stubUrl)}, shortCircuit: true } : next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);

await import(pathToFileURL(mainFile).href);
const chunkDir = path.join(mainDir, 'chunks');
const chunks = existsSync(chunkDir) ? readdirSync(chunkDir).filter((name) => name.endsWith('.js')) : [];
for (const chunk of chunks) await import(pathToFileURL(path.join(chunkDir, chunk)).href);

// The natives are imported lazily by the bundle; load them the way it would, from its own folder.
const requireFromMain = createRequire(mainFile);
const natives = Object.fromEntries(
  nativeExternals
    .split(',')
    .filter(Boolean)
    .map((name) => [name, { resolved: path.relative(appDir, requireFromMain.resolve(name)), keys: Object.keys(requireFromMain(name)).sort() }]),
);
process.stdout.write(`${JSON.stringify({ calls: globalThis.__electronStubCalls, chunks, natives })}\n`);
