import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRenderer } from '../../support/build-renderer';

/**
 * Issue 29, item 6: Mission Control speaks plain words. Every string the built renderer carries
 * (Svelte templates included: they compile to string literals) is read with the TypeScript parser,
 * and none may tell the operator a CLI flag, a `citadel …` command or a `$.` JSON path; the few
 * that name a real command on purpose are listed with why.
 */

// A flag after a space, quote or bracket (CSS custom properties such as `var(--surface)` are not flags).
const CLI_FLAG = /(?:^|[\s`'"]|(?<!var)\()(--[a-z][a-z0-9-]+)/g;
// Any `citadel` command (lower-case: the product's name in a sentence is capitalised), with its subcommand.
const CITADEL_COMMAND = /citadel (?:(?:fork|executors|runtimes|keys|trust) [a-z]+|[a-z][a-z-]*[a-z])\b/g;
const JSON_PATH = /\$\.[A-Za-z_[][^\s'"<]*/g;

const ALLOWED: Readonly<Record<string, string>> = {
  // The verifier every fork runs, shown as the command it is.
  '--check': 'git diff --check is the built-in verifier, named as the command the operator can run',
  // Land explains the one git command it performs.
  '--no-ff': "Land names the merge it performs (git merge --no-ff), so the operator knows what changes",
  // The diff viewer parses git's own header lines; never shown as instructions.
  '--git': 'diff parsing reads "diff --git" headers',
  '--combined': 'diff parsing reads "diff --combined" headers',
  // A Svelte style directive's CSS custom property.
  '--columns': 'CompareDiffs sets the CSS custom property --columns',
  // Settings tells the operator what to hand to a recipient, who verifies outside Mission Control.
  '--public-key': "Settings gives the recipient's own command: citadel verify BUNDLE --public-key FILE",
  'citadel verify': 'the command a recipient runs on their own machine',
  'citadel demo': 'the empty fork list offers the demo, and a demo fork says what made it',
  'citadel fork attest': 'Replay & proof says which command produces the attestation bundle it opens',
  'citadel mission-control': 'a page opened without its token says which command prints the link that has one',
  // New Fork's profile list maps the violations at this path to its own word ("Profiles"); the path is never shown.
  '$.executors': 'a lookup key of profile-draft, shown as "Profiles"',
};

function stringsOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) found.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Each CLI-ish phrase in a string that no entry of ALLOWED explains. */
function unexplainedWords(text: string): string[] {
  const hits = [...[...text.matchAll(CLI_FLAG)].map((m) => m[1] ?? ''), ...[...text.matchAll(CITADEL_COMMAND)].map((m) => m[0].trim()), ...[...text.matchAll(JSON_PATH)].map((m) => m[0])];
  return hits.filter((hit) => ALLOWED[hit] === undefined);
}

let base: string;
let built: string;

beforeAll(async () => {
  base = mkdtempSync(path.join(tmpdir(), 'citadel-words-'));
  built = await buildRenderer(path.join(base, 'renderer'));
}, 120_000);

afterAll(() => {
  if (base !== undefined) rmSync(base, { recursive: true, force: true });
});

describe('the built renderer speaks plain words', () => {
  it('the scanner sees a flag, a command and a JSON path (it can fail)', () => {
    expect(unexplainedWords('Mark failed (citadel fork resolve)')).toEqual(['citadel fork resolve']);
    expect(unexplainedWords('the address that `citadel ui` printed')).toEqual(['citadel ui']);
    expect(unexplainedWords('--confirm requires it unchanged')).toEqual(['--confirm']);
    expect(unexplainedWords('at $.executors[1].model')).toEqual(['$.executors[1].model']);
    expect(unexplainedWords('the verifier is <code>git diff --check</code>; background: var(--surface)')).toEqual([]);
  });

  it('no string in any built script tells the operator a CLI flag, a citadel command or a $. path', () => {
    const assets = path.join(built, 'assets');
    const scripts = readdirSync(assets).filter((file) => file.endsWith('.js'));
    expect(scripts.length).toBeGreaterThan(3);
    const strings = scripts.flatMap((file) => stringsOf(path.join(assets, file)));
    // The scan reads the templates: a known sentence of the Forks view is among the strings.
    expect(strings.some((text) => text.includes('No forks yet'))).toBe(true);
    const offending = strings.flatMap((text) => unexplainedWords(text).map((hit) => `${hit}  in  ${text.slice(0, 160)}`));
    expect(offending).toEqual([]);
  });
});
