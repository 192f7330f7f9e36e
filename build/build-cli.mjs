// Bundles the CLI into one ESM file that runs under plain Node >= 20 (no Electron).
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { NATIVE_EXTERNALS } from './bundle-externals.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * zod's `z.locales` namespace holds every language's error messages (~360 KB in each bundle, parsed
 * at every CLI, supervisor and runtime start). Citadel reads only English, which zod registers from
 * locales/en.js on its own, so the barrel is reduced to `en`: ~25 ms less CPU per CLI start.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(builder) {
    builder.onLoad({ filter: /[\\/]node_modules[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({ contents: 'export { default as en } from "./en.js";\n', loader: 'js' }));
  },
};

export async function buildCli() {
  await build({
    absWorkingDir: root,
    // The CLI, the detached runtime supervisor, the sandbox's inner bridge (found beside the supervisor,
    // main/host/open-context.ts) and the demo's simulated runtimes ship side by side.
    entryPoints: {
      citadel: 'main/cli/citadel.ts',
      supervisor: 'main/runtimes/supervisor/supervisor-main.ts',
      'sandbox-inner-bridge': 'main/sandbox/egress/inner-bridge.ts',
      'sandbox-clean-launch': 'main/sandbox/clean-launch-main.ts',
      'simulated-runtime': 'main/demo/simulated-runtime/index.ts',
    },
    outdir: 'out/cli',
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    // Dependencies are bundled so the CLI and the supervisor run from an installed app with plain
    // Node; only the keychain binding (a native N-API addon) is loaded from node_modules.
    external: [...NATIVE_EXTERNALS],
    // ESM builds first: jsonc-parser's UMD build requires its own files dynamically.
    mainFields: ['module', 'main'],
    sourcemap: true,
    // Bundled CommonJS dependencies call require(); ESM output needs one created for them.
    banner: {
      js: [
        '#!/usr/bin/env node',
        "import { createRequire as __citadelCreateRequire } from 'node:module';",
        "import { fileURLToPath as __citadelFileURLToPath } from 'node:url';",
        'const require = __citadelCreateRequire(import.meta.url);',
        'const __filename = __citadelFileURLToPath(import.meta.url);',
        "const __dirname = __citadelFileURLToPath(new URL('.', import.meta.url));",
      ].join('\n'),
    },
    plugins: [zodEnglishOnly],
    logLevel: 'warning',
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildCli();
}
