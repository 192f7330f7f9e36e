import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
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
