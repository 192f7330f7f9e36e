import { canonicalJson } from '../../../shared/canonical-json';
import type { Violation } from '../../../shared/errors';
import { InlineWorkflowSchema, type InlineWorkflow, type SetupNetwork } from '../../../shared/fork/workflow';
import type { ProposalFinding } from '../../../shared/fork/workflow-proposal';
import { formatJsonPath } from '../../../shared/json-text';
import { zodViolations } from '../../../shared/zod-violations';

/**
 * The New Fork workflow editor's model (issue 13 item 5). It starts from the file's workflow, the
 * built-in one, or `citadel init`'s proposal for the repository (issue 30), and rebuilds the workflow document from the fields on every change, checked live by
 * the shared InlineWorkflowSchema, the same schema the orchestrator freezes it with. Lists are typed
 * one entry per line; blank lines are ignored.
 */
export interface SetupRow {
  /** Stable identity for keyed rendering; not part of the workflow. */
  readonly key: number;
  id: string;
  command: string;
  /** One literal argument per line. */
  args: string;
  timeout_seconds: number | null | undefined;
  network: SetupNetwork;
}

export const setupPath = (index: number, field: string): string => formatJsonPath(['setup', index, field]);
export const verifierPath = (field: string): string => formatJsonPath(['verifier', field]);
export const PROTECTED_PATHS_PATH = formatJsonPath(['protected_paths']);

let nextKey = 1;

/** Where the editor's workflow came from; `found` is the repository's own workflow file when that is the file. */
export type DraftOrigin =
  | { readonly source: 'builtin' }
  | { readonly source: 'file'; readonly found: string | null }
  | { readonly source: 'proposal'; readonly reasons: readonly ProposalFinding[] };

export class WorkflowDraft {
  readonly origin: DraftOrigin;
  /** The workflow as loaded: while the fields still say exactly it, the file itself is what starts. */
  readonly loaded: InlineWorkflow;
  /** Refused at load: what the form could not show exactly, so editing it would silently change it. */
  readonly loadProblem: string | null;

  setup = $state<SetupRow[]>([]);
  verifierOn = $state(false);
  verifierCommand = $state('');
  verifierArgs = $state('');
  verifierTimeout = $state<number | null | undefined>(null);
  protectedPaths = $state('');

  readonly document = $derived(this.#build());
  readonly #result = $derived(InlineWorkflowSchema.safeParse(this.document));
  readonly violations: readonly Violation[] = $derived(this.#result.success ? [] : zodViolations(this.#result.error.issues, [], this.document));
  readonly valid = $derived(this.#result.success && this.#showable());
  readonly edited = $derived(this.#differs());

  constructor(origin: DraftOrigin, loaded: InlineWorkflow) {
    this.origin = origin;
    this.loaded = loaded;
    this.loadProblem = unshowable(loaded)
      ? 'This workflow has an empty argument or one with a line break, which this form cannot show; edit the file in a text editor instead.'
      : null;
    this.setup = loaded.setup.map((step) => ({ key: nextKey++, ...step, args: step.args.join('\n') }));
    this.verifierOn = loaded.verifier !== null;
    this.verifierCommand = loaded.verifier?.command ?? '';
    this.verifierArgs = loaded.verifier?.args.join('\n') ?? '';
    this.verifierTimeout = loaded.verifier?.timeout_seconds ?? 600;
    this.protectedPaths = loaded.protected_paths.join('\n');
  }

  add(): void {
    this.setup.push({ key: nextKey++, id: '', command: '', args: '', timeout_seconds: 600, network: 'none' });
  }

  remove(key: number): void {
    this.setup = this.setup.filter((row) => row.key !== key);
  }

  /** Moves a step one place up (-1) or down (+1); setup runs in this order. */
  move(key: number, by: -1 | 1): void {
    const from = this.setup.findIndex((row) => row.key === key);
    const to = from + by;
    if (from < 0 || to < 0 || to >= this.setup.length) return;
    const rows = [...this.setup];
    [rows[from], rows[to]] = [rows[to] as SetupRow, rows[from] as SetupRow];
    this.setup = rows;
  }

  #showable(): boolean {
    return this.loadProblem === null;
  }

  /** A proposal is no file: it is always sent as the document, as edited. */
  #differs(): boolean {
    return this.origin.source === 'proposal' || canonicalJson(this.document) !== canonicalJson(this.loaded);
  }

  #build(): unknown {
    return {
      schema_version: 2,
      steps: this.loaded.steps,
      verifier: this.verifierOn ? { command: this.verifierCommand, args: lines(this.verifierArgs), timeout_seconds: seconds(this.verifierTimeout) } : null,
      protected_paths: lines(this.protectedPaths),
      setup: this.setup.map((row) => ({ id: row.id, command: row.command, args: lines(row.args), timeout_seconds: seconds(row.timeout_seconds), network: row.network })),
    };
  }
}

/** A list entry one line per entry cannot show exactly: blank, or with a line break. */
function unshowable(workflow: InlineWorkflow): boolean {
  const lists = [...workflow.setup.map((s) => s.args), workflow.verifier?.args ?? [], workflow.protected_paths];
  return lists.some((list) => list.some((entry) => entry.trim() === '' || entry.includes('\n')));
}

const lines = (text: string): string[] => text.split('\n').filter((line) => line.trim() !== '');

/** An empty number field is null, which the schema reports as a missing number. */
const seconds = (value: number | null | undefined): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
