import { readdirSync } from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../support/run-cli';

/**
 * The layer table in eslint.config.js, fed one planted file per rule of ARCHITECTURE.md: each must
 * be reported, and the imports a room is allowed must not be, so the table cannot silently stop
 * working (a resolver that finds nothing, a zone whose path no longer matches).
 */

const PATHS = 'import-x/no-restricted-paths';
const NODE = 'import-x/no-nodejs-modules';
const PACKAGES = 'no-restricted-imports';

/** Every room in main/ but the Electron entry; none of them may import electron. */
const MAIN_ROOMS_WITHOUT_ELECTRON = readdirSync(path.join(REPO_ROOT, 'main'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && entry.name !== 'app')
  .map((entry) => `main/${entry.name}`);
const LOWER_ROOMS = ['main/runtimes', 'main/git', 'main/store', 'main/evidence', 'main/sandbox', 'main/host', 'main/landing', 'main/publish', 'main/verifier', 'main/executors'];

/**
 * A relative import, from the planted file `from`, of a real module of `room` (the rule resolves
 * every import, and files move between rooms, so the module is looked up rather than named).
 */
function importOf(from: string, room: string): string {
  const module = readdirSync(path.join(REPO_ROOT, room)).find((name) => name.endsWith('.ts') && !name.endsWith('.d.ts'));
  if (module === undefined) throw new Error(`no module in ${room}`);
  const specifier = path.relative(path.dirname(from), path.join(room, module.replace(/\.ts$/, '')));
  return specifier.startsWith('.') ? specifier : `./${specifier}`;
}

let eslint: ESLint;
beforeAll(async () => {
  eslint = new ESLint({ cwd: REPO_ROOT });
  // The first lint loads the configuration and its parsers: slow on a busy machine, so not in a test's time.
  await eslint.lintText('', { filePath: path.join(REPO_ROOT, 'shared/planted.ts') });
}, 120_000);

/** The rules that reported `code` as the file `file` (repository-relative); a parse error fails. */
async function rulesFor(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(REPO_ROOT, file) });
  if (result === undefined) throw new Error(`${file} was not linted`);
  const fatal = result.messages.find((message) => message.fatal === true || message.ruleId === null);
  if (fatal !== undefined) throw new Error(`${file}: ${fatal.message}`);
  return result.messages.map((message) => message.ruleId ?? '');
}

/** The relative specifier of one given module, from a planted file. */
function moduleOf(from: string, module: string): string {
  const specifier = path.relative(path.dirname(from), module);
  return specifier.startsWith('.') ? specifier : `./${specifier}`;
}

const ts = (specifier: string, name = 'value') => `import { ${name} } from '${specifier}';\nexport const used = ${name};\n`;
const svelteComponent = (specifier: string) => `<script lang="ts">\n  import { value } from '${specifier}';\n</script>\n\n<p>{value}</p>\n`;

describe('the layer table reports every planted violation', () => {
  const cases: [string, string, string, string][] = [
    // [what, planted file, code, rule]
    ['shared importing main', 'shared/ipc/planted.ts', ts(importOf('shared/ipc/planted.ts', 'main/store')), PATHS],
    ['shared importing the renderer', 'shared/planted.ts', ts(importOf('shared/planted.ts', 'renderer/src/lib')), PATHS],
    ['shared importing the preload', 'shared/planted.ts', ts(importOf('shared/planted.ts', 'preload')), PATHS],
    ['shared importing node:fs', 'shared/planted.ts', ts('node:fs', 'readFileSync'), NODE],
    ['shared importing bare fs', 'shared/fork/planted.ts', ts('fs', 'readFileSync'), NODE],
    ['shared importing bare path', 'shared/planted.ts', ts('path', 'join'), NODE],
    ['shared importing electron', 'shared/planted.ts', ts('electron', 'app'), PACKAGES],
    ['the renderer importing main', 'renderer/src/lib/planted.ts', ts(importOf('renderer/src/lib/planted.ts', 'main/orchestrator')), PATHS],
    ['the renderer importing the preload', 'renderer/src/lib/planted.ts', ts(importOf('renderer/src/lib/planted.ts', 'preload')), PATHS],
    ['a Svelte component importing main', 'renderer/src/views/Planted.svelte', svelteComponent(importOf('renderer/src/views/Planted.svelte', 'main/store')), PATHS],
    ['a Svelte component importing node:fs', 'renderer/src/components/Planted.svelte', svelteComponent('node:fs'), NODE],
    ['the renderer importing electron', 'renderer/src/lib/planted.ts', ts('electron', 'ipcRenderer'), PACKAGES],
    ['the preload importing main', 'preload/planted.ts', ts(importOf('preload/planted.ts', 'main/app')), PATHS],
    ['the preload importing the renderer', 'preload/planted.ts', ts(importOf('preload/planted.ts', 'renderer/src/lib')), PATHS],
    ['the preload importing node:path', 'preload/planted.ts', ts('node:path', 'join'), NODE],
    ['the preload importing electron beyond the bridge', 'preload/planted.ts', ts('electron', 'shell'), PACKAGES],
    ['the preload importing another package', 'preload/planted.ts', ts('zod', 'z'), PACKAGES],
    ['main importing the renderer', 'main/orchestrator/planted.ts', ts(importOf('main/orchestrator/planted.ts', 'renderer/src/lib')), PATHS],
    ...MAIN_ROOMS_WITHOUT_ELECTRON.map((room): [string, string, string, string] => [`${room} importing electron`, `${room}/planted.ts`, ts('electron', 'app'), PACKAGES]),
    ['main/runtimes importing a subpath of electron', 'main/runtimes/claude/planted.ts', ts('electron/main', 'app'), PACKAGES],
    ['main/orchestrator importing an electron type', 'main/orchestrator/planted.ts', "import type { App } from 'electron';\nexport type Used = App;\n", PACKAGES],
    ...LOWER_ROOMS.map((room): [string, string, string, string] => [
      `${room} importing the orchestrator`,
      `${room}/planted.ts`,
      ts(importOf(`${room}/planted.ts`, 'main/orchestrator')),
      PATHS,
    ]),
    ...['main/cli/commands', 'main/mission-control', 'main/demo', 'main/app', 'main/web'].map((room): [string, string, string, string] => [
      `${room} importing the orchestrator past its door`,
      `${room}/planted.ts`,
      ts(moduleOf(`${room}/planted.ts`, 'main/orchestrator/drive-fork'), 'driveFork'),
      PATHS,
    ]),
    ['a lower room importing an orchestrator type', 'main/git/planted.ts', `import type { Value } from '${importOf('main/git/planted.ts', 'main/orchestrator')}';\nexport type Used = Value;\n`, PATHS],
  ];

  it.each(cases)('%s', async (_what, file, code, rule) => {
    expect(await rulesFor(file, code)).toContain(rule);
  });

  it('covers every room the table names', () => {
    expect(MAIN_ROOMS_WITHOUT_ELECTRON).toEqual(expect.arrayContaining(['main/orchestrator', 'main/runtimes', 'main/git', 'main/store', 'main/evidence', 'main/sandbox']));
  });
});

describe('the layer table allows what the rooms may import', () => {
  const allowed: [string, string, string][] = [
    ['shared importing shared and zod', 'shared/ipc/planted.ts', `${ts('../errors', 'CitadelError')}import { z } from 'zod';\nexport const schema = z.string();\n`],
    ['the renderer importing shared and svelte', 'renderer/src/lib/planted.ts', `${ts('../../../shared/errors', 'CitadelError')}import { tick } from 'svelte';\nexport const next = tick;\n`],
    ['a Svelte component importing shared', 'renderer/src/views/Planted.svelte', svelteComponent('../../../shared/errors')],
    ['the preload importing shared and the bridge half of electron', 'preload/planted.ts', `${ts('../shared/ipc/contract', 'CHANNEL_NAMES')}import { contextBridge, ipcRenderer } from 'electron';\nexport const both = [contextBridge, ipcRenderer];\n`],
    ['main/app importing electron and Node', 'main/app/planted.ts', `${ts('electron', 'app')}import { join } from 'node:path';\nexport const joined = join;\n`],
    ['a shell importing the orchestrator\'s door', 'main/cli/commands/planted.ts', ts(moduleOf('main/cli/commands/planted.ts', 'main/orchestrator/index'), 'startFork')],
    ['the orchestrator importing a lower room', 'main/orchestrator/planted.ts', ts(importOf('main/orchestrator/planted.ts', 'main/store'))],
    ['a lower room importing another and shared', 'main/evidence/planted.ts', `${ts(importOf('main/evidence/planted.ts', 'main/store'))}import { readFile } from 'node:fs/promises';\nexport const read = readFile;\n`],
  ];

  it.each(allowed)('%s', async (_what, file, code) => {
    expect(await rulesFor(file, code)).toEqual([]);
  });
});
