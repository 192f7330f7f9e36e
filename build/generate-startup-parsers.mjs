// `npm run generate:parsers`: writes renderer/src/lib/generated/startup-parsers.ts (build/startup-parsers.ts says why).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const bundle = path.join(root, 'out', `startup-parsers-${process.pid}.mjs`);
await build({ entryPoints: [path.join(root, 'build', 'startup-parsers.ts')], outfile: bundle, bundle: true, platform: 'node', format: 'esm', packages: 'external', absWorkingDir: root, logLevel: 'error' });
try {
  const { startupParsersSource, GENERATED_PATH } = await import(pathToFileURL(bundle).href);
  const target = path.join(root, GENERATED_PATH);
  mkdirSync(path.dirname(target), { recursive: true });
  writeFileSync(target, startupParsersSource());
  process.stdout.write(`wrote ${GENERATED_PATH}\n`);
} finally {
  rmSync(bundle, { force: true });
}
