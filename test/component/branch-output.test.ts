import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BranchOutputSchema, type BranchOutput, type OutputText } from '../../shared/fork/branch-output';
import type { ForkStatus } from '../../shared/fork/fork-record';
import BranchOutputView from '../../renderer/src/components/BranchOutput.svelte';
import BranchPanel from '../../renderer/src/components/BranchPanel.svelte';
import { fakeClient } from './support/fake-client';
import { FORK_ID, runningBranchDetail } from './support/fixtures';

type Branch = ForkStatus['branches'][number];

const failed: Branch = { branch_id: 'branch-codex', profile_id: 'codex', runtime: 'codex', state: 'failed', failure_code: 'VERIFIER_FAILED', blocked_reason: null, blocked_code: null, attempt: 1 };

const text = (log: string, body: string, overrides: Partial<OutputText> = {}): OutputText => ({
  log,
  present: true,
  text: body,
  truncated: false,
  stored_bytes: new TextEncoder().encode(body).length,
  hidden_lines: 0,
  ...overrides,
});

const ASSERTION = 'AssertionError: expected 1 to be 3';

function output(overrides: Partial<BranchOutput> = {}): BranchOutput {
  return BranchOutputSchema.parse({
    fork_id: FORK_ID,
    branch_id: 'branch-codex',
    attempt: 1,
    tail_limit: { lines: 200, bytes: 65536 },
    runtime: {
      exit: { code: 0, signal: null, timed_out: false, stopped: false, spawn_error: null },
      dropped_bytes: null,
      stdout: text('stdout', '{"type":"turn.completed"}'),
      stderr: text('stderr', '', { present: false, stored_bytes: null }),
    },
    setup: [],
    verifier: [
      { step: 'git_diff_check', argv: null, status: 'passed', exit_code: 0, timed_out: false, output: text('verifier:git_diff_check', '') },
      {
        step: 'workflow_verifier',
        argv: ['node', 'test/check.mjs'],
        status: 'failed',
        exit_code: 1,
        timed_out: false,
        output: text('verifier:workflow_verifier', `check 299: ok\n[citadel: this line is hidden: it looks like it holds a secret]\n${ASSERTION}`, { truncated: true, stored_bytes: 300_000, hidden_lines: 1 }),
      },
    ],
    explains: 'verifier:workflow_verifier',
    ...overrides,
  });
}

/** A running branch: its runtime's stdout so far is `lines` lines; nothing has exited, nothing is verified. */
function running(lines: number): BranchOutput {
  const stdout = Array.from({ length: lines }, (_, i) => `{"type":"item.completed","n":${i + 1}}`).join('\n');
  return output({
    runtime: { exit: null, dropped_bytes: null, stdout: text('stdout', stdout), stderr: text('stderr', '', { present: false, stored_bytes: null }) },
    verifier: [],
    explains: null,
  });
}

const disclosure = (title: string): HTMLDetailsElement => {
  const details = screen.getByText(title, { selector: '.title' }).closest('details');
  if (details === null) throw new Error(`${title} outside a disclosure`);
  return details;
};

describe('a branch output on the Fork page (issue 29)', () => {
  it('opens the failing step that explains the failure, closes the rest, and loads the whole log on Show all', async () => {
    const whole = text('verifier:workflow_verifier', `check 1: ok\n${ASSERTION}`, { truncated: true, stored_bytes: 5 * 1024 * 1024 });
    const { client, calls } = fakeClient({
      branchOutput: () => ({ ok: true, value: output({ runtime: { ...output().runtime, dropped_bytes: { stdout: 2048, stderr: 0 } } }) }),
      branchLog: () => ({ ok: true, value: whole }),
    });
    render(BranchOutputView, { props: { client, forkId: FORK_ID, branch: failed } });

    const verifier = await waitFor(() => disclosure("Verifier: the workflow's command"));
    expect(verifier.open).toBe(true);
    expect(verifier.id).toBe('branch-branch-codex-why');
    expect(within(verifier).getByText('explains the failure')).toBeInTheDocument();
    expect(within(verifier).getByText('exit code 1')).toBeInTheDocument();
    expect(within(verifier).getByText('node test/check.mjs')).toBeInTheDocument();
    const pre = within(verifier).getByLabelText("Verifier: the workflow's command of branch-codex");
    expect(pre.tagName).toBe('PRE');
    expect(pre).toHaveTextContent(ASSERTION);
    expect(within(verifier).getByText('Earlier lines are left out. 1 line is hidden: they look like they hold a secret.')).toBeInTheDocument();
    expect(disclosure('Verifier: whitespace errors in the change').open).toBe(false);
    expect(within(disclosure('Verifier: whitespace errors in the change')).getByText('printed nothing')).toBeInTheDocument();
    expect(disclosure('Runtime: standard output').open).toBe(false);
    expect(within(disclosure('Runtime: standard output')).getByText("The runtime printed 2 KiB more after this, past the log's limit: that was not kept.")).toBeInTheDocument();
    expect(within(disclosure('Runtime: error output')).getByText('nothing kept')).toBeInTheDocument();
    // No setup in this fork: no setup section.
    expect(screen.queryByText(/^Setup step/)).toBeNull();

    await fireEvent.click(within(verifier).getByRole('button', { name: 'Show all (293 KiB)' }));
    await waitFor(() => expect(pre).toHaveTextContent('check 1: ok'));
    expect(calls.filter((c) => c.channel === 'branchLog').map((c) => c.request)).toEqual([{ fork_id: FORK_ID, branch_id: 'branch-codex', which: 'verifier:workflow_verifier' }]);
    expect(within(verifier).getByText('The log is 5,120 KiB: only its end is shown, earlier lines are left out.')).toBeInTheDocument();
    expect(within(verifier).queryByRole('button', { name: /Show all/ })).toBeNull();
  });

  it('reads again when the branch moves on, and says so when the output cannot be read', async () => {
    let answers = 0;
    const { client } = fakeClient({
      branchOutput: () => (++answers === 1 ? { ok: false, error: { code: 'FORK_RECORD_INVALID', message: 'fork.json does not match its schema' } } : { ok: true, value: output() }),
    });
    const view = render(BranchOutputView, { props: { client, forkId: FORK_ID, branch: { ...failed, state: 'running', failure_code: null } } });
    expect(await screen.findByText('The branch output could not be read')).toBeInTheDocument();
    await view.rerender({ client, forkId: FORK_ID, branch: failed });
    await waitFor(() => expect(disclosure("Verifier: the workflow's command").open).toBe(true));
    expect(answers).toBe(2);
  });

  describe('following a running branch', () => {
    const runningBranch: Branch = { ...failed, state: 'running', failure_code: null };
    const activity = (seq: number, branchId = 'branch-codex', forkId = FORK_ID) => ({
      type: 'runtime_activity',
      fork_id: forkId,
      branch_id: branchId,
      at: '2026-11-01T00:00:00.000Z',
      seq,
      kind: 'command_started',
      summary: 'npm test',
    });
    afterEach(() => void vi.useRealTimers());

    /** The view over a fake client whose every read finds one more line of stdout. */
    async function follow() {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
      let lines = 0;
      const fake = fakeClient({ branchOutput: () => ({ ok: true, value: running(++lines) }) });
      const view = render(BranchOutputView, { props: { client: fake.client, forkId: FORK_ID, branch: runningBranch } });
      const stdout = await vi.waitFor(() => screen.getByLabelText('Runtime: standard output of branch-codex'));
      const reads = (): number => fake.calls.filter((c) => c.channel === 'branchOutput').length;
      // Events reach the view through the client's parse, and each read through its reply's: let both settle.
      const settle = async (ms: number): Promise<void> => void (await vi.advanceTimersByTimeAsync(ms));
      return { ...fake, view, stdout, reads, settle };
    }

    it("reads the tails again on this branch's live events, at most once per 2 s, and on no other branch's or fork's", async () => {
      const { emit, view, stdout, reads, settle } = await follow();
      expect(stdout.textContent?.split('\n')).toHaveLength(1);
      // The operator opens the runtime's output to watch it: new text does not close it.
      const box = disclosure('Runtime: standard output');
      box.open = true;

      emit(activity(1, 'branch-claude'));
      emit(activity(1, 'branch-codex', 'fork-01jq7m3x9r2v5k8d4f6h0n1p2t'));
      // A state change is the panel's to pass down (the branch prop), not a live read.
      emit({ type: 'branch_state', fork_id: FORK_ID, branch_id: 'branch-codex', state: 'running', failure_code: null });
      await settle(5000);
      expect(reads()).toBe(1);

      // A burst: one read, at once (the last was long enough ago).
      emit(activity(1));
      emit(activity(2));
      emit({ type: 'live_diff', fork_id: FORK_ID, branch_id: 'branch-codex', files_changed: 1, insertions: 2, deletions: 0 });
      await settle(0);
      expect(reads()).toBe(2);
      expect(stdout.textContent?.split('\n')).toHaveLength(2);

      // The next, within 2 s of that read, waits for the rest of them.
      emit({ type: 'verifier_step', fork_id: FORK_ID, branch_id: 'branch-codex', step: 'workflow_verifier', status: 'running' });
      emit({ type: 'setup_step', fork_id: FORK_ID, branch_id: 'branch-codex', step: 'install', status: 'passed' });
      await settle(1999);
      expect(reads()).toBe(2);
      await settle(1);
      expect(reads()).toBe(3);
      expect(stdout).toHaveTextContent('"n":3');
      expect(box.open).toBe(true);

      emit({ type: 'runtime', fork_id: FORK_ID, branch_id: 'branch-codex', phase: 'exited' });
      await settle(2000);
      expect(reads()).toBe(4);
      // Gone from the page, it reads no more, not even the read that was waiting.
      emit(activity(3));
      await settle(0);
      view.unmount();
      await settle(5000);
      expect(reads()).toBe(4);
    });

    it('keeps a log scrolled to its end as it grows, and leaves it where the operator scrolled up to', async () => {
      const { emit, stdout, settle } = await follow();
      // jsdom lays nothing out: a box 30 px high, each line 20 px.
      Object.defineProperty(stdout, 'clientHeight', { value: 30 });
      Object.defineProperty(stdout, 'scrollHeight', { get: () => (stdout.textContent?.split('\n').length ?? 0) * 20 });
      Object.defineProperty(stdout, 'scrollTop', { value: 0, writable: true });
      const grow = async (seq: number): Promise<void> => {
        emit(activity(seq));
        await settle(2000);
      };

      await grow(1);
      expect(stdout.scrollTop).toBe(40);
      await grow(2);
      expect(stdout.scrollTop).toBe(60);

      stdout.scrollTop = 0;
      await fireEvent.scroll(stdout);
      await grow(3);
      expect(stdout.textContent).toContain('"n":4');
      expect(stdout.scrollTop).toBe(0);

      // Back at the end, it follows again.
      stdout.scrollTop = stdout.scrollHeight - 30;
      await fireEvent.scroll(stdout);
      await grow(4);
      expect(stdout.scrollTop).toBe(100);
    });
  });

  it("links the panel's failure code to the log that explains it: following it opens that log and moves focus there", async () => {
    const blocked: Branch = { ...failed, state: 'blocked', failure_code: null, blocked_reason: 'start_refused', blocked_code: 'SETUP_FAILED' };
    const setupFailed = output({
      runtime: { exit: null, dropped_bytes: null, stdout: text('stdout', '', { present: false, stored_bytes: null }), stderr: text('stderr', '', { present: false, stored_bytes: null }) },
      setup: [{ step_id: 'install', argv: ['npm', 'ci'], status: 'failed', exit_code: 1, timed_out: false, output: text('setup:install', 'npm ERR! code E404') }],
      verifier: [],
      explains: 'setup:install',
    });
    const { client } = fakeClient({
      branchDetail: (request) => ({ ok: true, value: runningBranchDetail(request.branch_id) }),
      branchOutput: () => ({ ok: true, value: setupFailed }),
    });
    render(BranchPanel, { props: { client, forkId: FORK_ID, branch: blocked, entries: [], readiness: null, stopping: false, onstop: () => undefined, onresolved: () => undefined } });
    const setup = await waitFor(() => disclosure('Setup step install'));
    // Open by default (it failed); closed here to see the link open it.
    setup.open = false;
    const link = screen.getByRole('link', { name: 'SETUP_FAILED: see the output that explains it' });
    expect(link).toHaveAttribute('href', '#branch-branch-codex-why');
    await fireEvent.click(link);
    expect(setup.open).toBe(true);
    expect(document.activeElement).toBe(setup.querySelector('summary'));
    expect(within(setup).getByText('npm ERR! code E404')).toBeInTheDocument();
    // The router's hash is left alone.
    expect(window.location.hash).toBe('');
  });
});
