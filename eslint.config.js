import js from '@eslint/js';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';
import svelte from 'eslint-plugin-svelte';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * The layer table (ARCHITECTURE.md, "Layers are enforced by lint"), on the model of VS Code's
 * `code-layering` and `import/no-restricted-paths` zones: each room, the project folders it may
 * import from (npm packages aside), whether it may use Node built-ins, and what of electron.
 * Import cycles, between files and between folders, are checked apart, by test/unit/lint/import-cycles.test.ts.
 */
const ROOMS = [
  { room: 'shared', mayImport: ['shared'], node: false, electron: 'never', why: 'shared/ is environment-free: it runs in the renderer too' },
  { room: 'renderer', mayImport: ['renderer', 'shared'], node: false, electron: 'never', why: 'the renderer is a page: it reaches main only through window.citadel' },
  { room: 'preload', mayImport: ['preload', 'shared'], node: false, electron: 'bridge', why: 'the preload is the bridge: the contract and contextBridge/ipcRenderer, nothing else' },
  // Within main/ (whose zone below covers it), the Electron entry is the one room that imports electron.
  { room: 'main/app', node: true, electron: 'any' },
  { room: 'main', mayImport: ['main', 'shared', 'package.json'], node: true, electron: 'never', why: 'only main/app imports electron: the orchestrator is a plain library every shell calls' },
];

/** Rooms below the orchestrator: it calls them, never the other way round. */
const LOWER_ROOMS = ['main/runtimes', 'main/git', 'main/store', 'main/evidence', 'main/sandbox', 'main/host', 'main/landing', 'main/publish', 'main/verifier', 'main/executors', 'main/setup', 'main/workspace'];

/** The shells: each action is one call through the orchestrator's one door, its index.ts. */
const SHELL_ROOMS = ['main/cli', 'main/mission-control', 'main/demo', 'main/app', 'main/web'];

const ZONES = [
  ...ROOMS.filter(({ mayImport }) => mayImport !== undefined).map(({ room, mayImport, why }) => ({
    target: `./${room}`,
    from: './',
    except: [...mayImport, 'node_modules'].map((folder) => `./${folder}`),
    message: `${room}/ may import only ${mayImport.join(', ')} and npm packages (${why}).`,
  })),
  { target: LOWER_ROOMS.map((room) => `./${room}`), from: './main/orchestrator', message: `${LOWER_ROOMS.join(', ')} never import the orchestrator, which calls them.` },
  {
    target: SHELL_ROOMS.map((room) => `./${room}`),
    from: './main/orchestrator',
    except: ['./index.ts'],
    message: `${SHELL_ROOMS.join(', ')} reach the orchestrator only through its one door, main/orchestrator/index.ts.`,
  },
];

const ELECTRON = {
  never: { paths: [{ name: 'electron', message: 'only main/app and the preload import electron' }], patterns: [{ group: ['electron/*'], message: 'only main/app and the preload import electron' }] },
  bridge: {
    paths: [{ name: 'electron', allowImportNames: ['contextBridge', 'ipcRenderer'], message: 'the preload uses contextBridge and ipcRenderer only' }],
    // Nothing but the contract (relative) and electron: a bridge needs no other package.
    patterns: [{ regex: '^(?!\\.|electron$)', message: 'the preload imports shared/ and electron only' }],
  },
};

/** Per room: Node built-ins and electron, which are packages rather than paths. */
const packageRules = ROOMS.map(({ room, node, electron }) => ({
  files: [`${room}/**`],
  ignores: room === 'main' ? ['main/app/**'] : [],
  rules: {
    'import-x/no-nodejs-modules': node ? 'off' : 'error',
    'no-restricted-imports': electron === 'any' ? 'off' : ['error', ELECTRON[electron]],
  },
}));

const SVELTE_FILES = ['**/*.svelte', '**/*.svelte.ts'];

export default tseslint.config(
  // renderer/src/lib/generated: zod's compiled parsers (build/startup-parsers.ts), held to the schemas by a test.
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'coverage/**', 'renderer/src/lib/generated/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  // The plugin's rule block names no files; scoped here, the .ts files are spared its rules.
  ...svelte.configs.recommended.map((block) => (block.files || !block.rules ? block : { ...block, files: SVELTE_FILES })),
  // The renderer is a page: browser globals only, no `process` or `Buffer`.
  { ignores: ['renderer/**'], languageOptions: { globals: { ...globals.node } } },
  {
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.svelte', '.js', '.mjs', '.cjs', '.json'] })],
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: ZONES }],
    },
  },
  {
    files: SVELTE_FILES,
    languageOptions: { parserOptions: { parser: tseslint.parser, extraFileExtensions: ['.svelte'] } },
  },
  {
    files: ['renderer/**'],
    languageOptions: { globals: { ...globals.browser } },
  },
  ...packageRules,
);
