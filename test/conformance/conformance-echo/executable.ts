import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

export const ECHO_VERSION_LINE = 'conformance-echo 1.0.0';

export interface EchoEdit {
  readonly path: string;
  readonly content: string;
}

/**
 * Writes the `conformance-echo` executable into binDir (mode 0755): a tiny Node script that reads
 * the prompt on stdin, writes the given files relative to its cwd, and prints its JSONL protocol
 * (parse-output.ts). `--version` prints ECHO_VERSION_LINE. The edits are baked into the script
 * because Citadel gives a runtime only its allowlisted environment.
 */
export async function installEchoExecutable(binDir: string, edits: readonly EchoEdit[] = [], nodeExecPath = process.execPath): Promise<string> {
  await mkdir(binDir, { recursive: true });
  const file = path.join(binDir, 'conformance-echo');
  const script = [
    `#!${nodeExecPath}`,
    '// The test-only conformance-echo runtime. Dynamic import() works whether Node loads this as CommonJS or ESM.',
    "Promise.all([import('node:fs'), import('node:path'), import('node:crypto')]).then(([fs, path, crypto]) => {",
    '  const argv = process.argv.slice(2);',
    `  if (argv[0] === '--version') return void process.stdout.write(${JSON.stringify(`${ECHO_VERSION_LINE}\n`)});`,
    "  if (argv[0] !== 'run' || argv.at(-1) !== '-') { process.stderr.write('usage: conformance-echo run … -\\n'); process.exitCode = 2; return; }",
    '  const prompt = fs.readFileSync(0);',
    "  const loud = argv[argv.indexOf('--verbosity') + 1] === 'loud';",
    "  const emit = (event) => process.stdout.write(JSON.stringify(event) + '\\n');",
    "  emit({ kind: 'session', id: crypto.randomUUID() });",
    "  if (loud) process.stderr.write('conformance-echo: read ' + prompt.length + ' bytes\\n');",
    `  const edits = ${JSON.stringify(edits)};`,
    '  let written = 0;',
    '  for (const edit of edits) {',
    '    const target = path.resolve(edit.path);',
    '    fs.mkdirSync(path.dirname(target), { recursive: true });',
    '    fs.writeFileSync(target, edit.content);',
    '    written += Buffer.byteLength(edit.content);',
    "    emit({ kind: 'edit', path: edit.path });",
    '  }',
    "  emit({ kind: 'result', ok: true, usage: { input_tokens: prompt.length, output_tokens: written } });",
    '});',
    '',
  ].join('\n');
  await writeFile(file, script);
  await chmod(file, 0o755);
  return file;
}
