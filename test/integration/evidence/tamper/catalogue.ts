import { generateKeyPairSync } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { canonicalJson } from '../../../../shared/canonical-json';
import { sha256Digest } from '../../../../shared/digest';
import { BRANCH_STATES, FORK_STATES } from '../../../../shared/fork/fork-states';
import { FAILURE_CODES } from '../../../../shared/runtime/telemetry';
import { DELETE, getAt, isLeaf, isObject, jsonText, nodes, objectNodes, pathLabel, setAt, tweak, type Json } from './json-tree';
import { resignFork } from '../../../support/resign-fork';

/**
 * One attack on a fork folder: `apply` edits the working copy (the folder given), `touches` names
 * every path (relative to the fork folder, file or directory) it may change, which is restored
 * from the template afterwards. `file` is the row of the counts table it is counted under.
 */
export interface Mutation {
  readonly file: string;
  readonly label: string;
  readonly touches: readonly string[];
  readonly apply: (forkDir: string) => void;
  /** A re-signed fork: every branch must be `signer_untrusted` and none verified. */
  readonly untrusted?: true;
}

/** The stored files of a fork folder, found by walking it (relative paths, sorted), and its directories. */
export function storedTree(forkDir: string): { files: string[]; dirs: string[] } {
  const files: string[] = [];
  const dirs: string[] = [];
  const walk = (rel: string): void => {
    for (const name of readdirSync(path.join(forkDir, rel)).sort()) {
      const child = rel === '' ? name : path.join(rel, name);
      const st = statSync(path.join(forkDir, child));
      if (st.isDirectory()) {
        dirs.push(child);
        walk(child);
      } else files.push(child);
    }
  };
  walk('');
  return { files, dirs };
}

/** Puts `rel` of the working copy back exactly as it is in the template (removed when the template has none). */
export function restore(template: string, work: string, rel: string): void {
  const target = path.join(work, rel);
  rmSync(target, { recursive: true, force: true });
  if (existsSync(path.join(template, rel))) cpSync(path.join(template, rel), target, { recursive: true });
}

const writeFile = (rel: string, text: string | null) => (forkDir: string): void => {
  const file = path.join(forkDir, rel);
  if (text === null) rmSync(file, { force: true });
  else writeFileSync(file, text);
};

const isEnvelope = (doc: Json): doc is { [key: string]: Json; receipt: Json } => isObject(doc) && 'receipt' in doc && 'receipt_digest' in doc && 'signature' in doc;
const redigest = (doc: Json): Json => (isEnvelope(doc) ? { ...doc, receipt_digest: sha256Digest(canonicalJson(doc.receipt)) } : doc);

/**
 * Every leaf changed and deleted, every other node deleted, every object node given
 * `trusted: true`; in a signed envelope every edit inside the receipt again with its digest
 * recomputed (only the signature can then catch it); the file removed, and not JSON.
 */
function jsonMutations(rel: string, doc: Json): Mutation[] {
  const out: Mutation[] = [];
  const add = (label: string, text: string | null): void => void out.push({ file: rel, label, touches: [rel], apply: writeFile(rel, text) });
  const signed = isEnvelope(doc);
  for (const p of nodes(doc)) {
    const v = getAt(doc, p);
    const inReceipt = signed && p[0] === 'receipt' && p.length > 1;
    const edits: [string, Json][] = [[`delete ${pathLabel(p)}`, setAt(doc, p, DELETE)]];
    if (isLeaf(v)) edits.unshift([`change ${pathLabel(p)}`, setAt(doc, p, tweak(v))]);
    for (const [label, edited] of edits) {
      add(label, jsonText(edited));
      if (inReceipt) add(`${label} (digest recomputed)`, jsonText(redigest(edited)));
    }
  }
  for (const p of objectNodes(doc)) {
    const flagged = setAt(doc, [...p, 'trusted'], true);
    add(`trusted: true at ${pathLabel(p)}`, jsonText(flagged));
    if (signed && p[0] === 'receipt') add(`trusted: true at ${pathLabel(p)} (digest recomputed)`, jsonText(redigest(flagged)));
  }
  add('remove the file', null);
  add('not JSON', '{"');
  return out;
}

interface JournalLine {
  seq: number;
  at: string;
  effect: string;
  key: string;
  phase: string;
  outcome?: string;
  data?: Record<string, Json>;
}

/** Forged lines appended to a journal, as another process of the operator could. */
function journalMutations(rel: string, text: string, forkId: string, branchIds: readonly string[]): Mutation[] {
  const lines = text.split('\n').filter(Boolean);
  const last = lines[lines.length - 1];
  const add = (label: string, extra: string): Mutation => ({ file: rel, label, touches: [rel], apply: writeFile(rel, `${text}${extra}`) });
  const out: Mutation[] = [];
  if (last !== undefined) out.push(add('duplicate the last line', `${last}\n`));
  out.push(add('append a line that is not JSON', '{"seq":\n'));
  if (rel !== 'journal.jsonl') return out;
  const records = lines.map((l) => JSON.parse(l) as JournalLine);
  let seq = records.length;
  const line = (r: Omit<JournalLine, 'seq' | 'at'>): string => `${JSON.stringify({ seq: seq++, at: new Date(Date.UTC(2030, 0, 1)).toISOString(), ...r })}\n`;
  const fakeCommit = 'e'.repeat(40);
  const landing = records.find((r) => r.effect === 'landing.merge' && r.phase === 'intent');
  for (const branchId of branchIds) {
    seq = records.length;
    // A collect result saying this branch passed.
    out.push(add(`append a receipt.collect result: ${branchId} passed`, line({ effect: 'receipt.collect', key: `${branchId}#1`, phase: 'result', outcome: 'done', data: { status: 'passed', failure_code: null, result_commit: fakeCommit } })));
    seq = records.length;
    // A landing of this branch that never happened: an intent and a `done` result naming a commit that does not exist.
    const intent = landing?.data ?? {};
    const key = `${branchId}@${String(intent.fork_revision ?? 0)}#9`;
    const forged =
      line({ effect: 'landing.merge', key, phase: 'intent', data: { ...intent, fork_id: forkId, branch_id: branchId, git_branch: `citadel/${forkId}/${branchId}` } }) +
      line({ effect: 'landing.merge', key, phase: 'result', outcome: 'done', data: { merge_commit: fakeCommit, landed_at: '2030-01-01T00:00:00.000Z', reconciled: false } });
    out.push(add(`append a landing of ${branchId} (intent and done)`, forged));
  }
  if (landing) {
    seq = records.length;
    out.push(add('append a second done result for the recorded landing, another merge commit', line({ effect: 'landing.merge', key: landing.key, phase: 'result', outcome: 'done', data: { merge_commit: fakeCommit, landed_at: '2030-01-01T00:00:00.000Z', reconciled: true } })));
  }
  return out;
}

export interface CatalogueInput {
  /** The pristine fork folder under test, and the same fork's id. */
  readonly template: string;
  readonly forkId: string;
  readonly branchIds: readonly string[];
  /** The branch that passed and the one its verifier failed. */
  readonly passing: string;
  readonly failing: string;
  /** A second fork folder of the same repository and executors, whose files and directories are swapped in. */
  readonly other: string;
}

/** The whole catalogue, generated from what the template folder holds. */
export function catalogue(input: CatalogueInput): Mutation[] {
  const { template, other } = input;
  const { files, dirs } = storedTree(template);
  const out: Mutation[] = [];
  for (const rel of files) {
    const bytes = readFileSync(path.join(template, rel));
    if (rel.endsWith('.json')) out.push(...jsonMutations(rel, JSON.parse(bytes.toString('utf8')) as Json));
    else {
      if (rel.endsWith('.jsonl')) out.push(...journalMutations(rel, bytes.toString('utf8'), input.forkId, input.branchIds));
      out.push({ file: rel, label: 'replace the contents', touches: [rel], apply: writeFile(rel, bytes.length === 0 ? 'tampered\n' : `tampered ${bytes.length}\n`) });
    }
    // The same file of the second fork, where it differs.
    const theirs = path.join(other, rel);
    if (existsSync(theirs) && !readFileSync(theirs).equals(bytes)) {
      out.push({ file: rel, label: 'swap in the second fork\'s file', touches: [rel], apply: (forkDir) => cpSync(theirs, path.join(forkDir, rel)) });
    }
  }
  // Whole directories: each branch and attempt folder swapped with the second fork's, and dropped; the whole folder swapped.
  const swapDir = (rel: string): Mutation => ({
    file: `${rel}/`,
    label: 'swap in the second fork\'s directory',
    touches: [rel],
    apply: (forkDir) => {
      rmSync(path.join(forkDir, rel), { recursive: true, force: true });
      cpSync(path.join(other, rel), path.join(forkDir, rel), { recursive: true });
    },
  });
  for (const rel of dirs.filter((d) => /^branches\/[^/]+(\/attempt-\d+)?$/.test(d))) {
    if (existsSync(path.join(other, rel))) out.push(swapDir(rel));
    out.push({ file: `${rel}/`, label: 'drop the directory', touches: [rel], apply: (forkDir) => rmSync(path.join(forkDir, rel), { recursive: true, force: true }) });
  }
  const everything = [...new Set(storedTree(template).files.map((f) => f.split(path.sep)[0] ?? f))];
  out.push({
    file: '(fork folder)/',
    label: 'swap in the second fork\'s whole folder',
    touches: everything,
    apply: (forkDir) => {
      for (const top of everything) rmSync(path.join(forkDir, top), { recursive: true, force: true });
      cpSync(other, forkDir, { recursive: true });
    },
  });
  // fork.json's branch list: each entry duplicated, dropped, and the list reversed.
  const record = JSON.parse(readFileSync(path.join(template, 'fork.json'), 'utf8')) as { branches: Json[] } & Record<string, Json>;
  const withBranches = (label: string, branches: Json[]): Mutation => ({ file: 'fork.json', label, touches: ['fork.json'], apply: writeFile('fork.json', jsonText({ ...record, branches })) });
  record.branches.forEach((b, i) => {
    out.push(withBranches(`duplicate branch entry ${i}`, [...record.branches, b]));
    out.push(withBranches(`drop branch entry ${i}`, record.branches.filter((_, j) => j !== i)));
  });
  out.push(withBranches('reverse the branch entries', [...record.branches].reverse()));
  out.push(...validValueMutations(record));
  // Every signed file re-signed with a fresh key, as is and with the verifier outcomes swapped.
  const signedFiles = resignedFiles(template);
  for (const flip of [{}, { [input.passing]: 'failed', [input.failing]: 'passed' }] as const) {
    const key = generateKeyPairSync('ed25519').privateKey;
    out.push({
      file: '(every signed file)',
      label: Object.keys(flip).length === 0 ? 're-sign with a fresh key' : `re-sign with a fresh key, ${input.failing} turned into a pass`,
      touches: signedFiles,
      apply: (forkDir) => void resignFork(forkDir, key, flip),
      untrusted: true,
    });
  }
  return out;
}

/**
 * fork.json's states and failure codes set to every other valid value (a changed letter only
 * reaches the schema; a valid value reaches the checks behind it).
 */
function validValueMutations(record: Record<string, Json>): Mutation[] {
  const out: Mutation[] = [];
  const add = (label: string, edited: Json): void => void out.push({ file: 'fork.json', label, touches: ['fork.json'], apply: writeFile('fork.json', jsonText(edited)) });
  const others = <T>(all: readonly T[], now: Json): T[] => all.filter((v) => v !== now);
  for (const state of others(FORK_STATES, record.state ?? null)) add(`state -> ${state}`, setAt(record, ['state'], state));
  const branches = Array.isArray(record.branches) ? record.branches : [];
  branches.forEach((b, i) => {
    if (!isObject(b)) return;
    for (const state of others(BRANCH_STATES, b.state ?? null)) add(`branches.${i}.state -> ${state}`, setAt(record, ['branches', i, 'state'], state));
    for (const code of others([null, ...FAILURE_CODES], b.failure_code ?? null)) add(`branches.${i}.failure_code -> ${String(code)}`, setAt(record, ['branches', i, 'failure_code'], code));
  });
  return out;
}

/** Which files re-signing rewrites, learnt on a throwaway copy. */
function resignedFiles(dir: string): string[] {
  const copy = `${dir}.resign-probe`;
  cpSync(dir, copy, { recursive: true });
  try {
    return resignFork(copy, generateKeyPairSync('ed25519').privateKey);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}
