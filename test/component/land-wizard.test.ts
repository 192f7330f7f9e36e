import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import { CitadelError } from '../../shared/errors';
import { ForkOverviewSchema, type ForkOverview } from '../../shared/fork/fork-overview';
import { LANDING_CHECK_NAMES, LandingCheckSchema, type LandingCheck } from '../../shared/fork/landing';
import LandView from '../../renderer/src/views/LandView.svelte';
import { fakeClient } from './support/fake-client';
import { BASE, digest, FORK_ID } from './support/fixtures';

const TOKEN = '0123456789ab';
const MERGE = 'd'.repeat(40);

const checks = (failing: Partial<Record<(typeof LANDING_CHECK_NAMES)[number], string>> = {}): LandingCheck[] =>
  LANDING_CHECK_NAMES.map((name) => LandingCheckSchema.parse({ name, ok: !(name in failing), reason: failing[name] ?? null }));

const confirmButton = (): HTMLElement => screen.getByRole('button', { name: /land \(local merge\)/i });

const SELECTION = { branch_id: 'branch-claude', actor: 'alice', selected_at: '2026-11-29T20:05:00.000Z', reason: 'it passed', reason_digest: digest('it passed'), against_evidence: null };
const LANDED = { status: 'landed' as const, branch_id: 'branch-claude', target_branch: 'main', merge_commit: MERGE, landed_at: '2026-11-29T20:10:00.000Z', on_target_branch: true };
const overview = (overrides: Partial<ForkOverview> = {}): ForkOverview =>
  ForkOverviewSchema.parse({
    fork_id: FORK_ID,
    title: 'Fix the sum function',
    title_standing: 'verified',
    repo_name: 'app',
    repo_path: '/home/alice/src/app',
    base_revision: BASE,
    repo_branch: 'main',
    selection: SELECTION,
    landing: null,
    worktrees: [],
    ...overrides,
  });
// What the orchestrator answers once a fork has landed: selection_current fails by design.
const afterLanding = checks({ selection_current: `the fork has already landed (merge commit ${MERGE})` });

describe('land wizard', () => {
  it('lists every precondition with pass or fail and its reason', async () => {
    const { client } = fakeClient({
      landingChecks: () => ({ ok: true, value: { checks: checks({ target_clean: 'target has 2 uncommitted changes' }), token: null, against_evidence: null, continues: null } }),
    });
    render(LandView, { props: { client, forkId: FORK_ID } });

    await screen.findByText('target has 2 uncommitted changes');
    const rendered = screen.getAllByRole('listitem').filter((item) => item.dataset.check !== undefined);
    expect(rendered.map((item) => item.dataset.check)).toEqual([...LANDING_CHECK_NAMES]);
    const clean = rendered.find((item) => item.dataset.check === 'target_clean');
    expect(clean).toHaveTextContent('FAIL');
    expect(clean).toHaveTextContent('target has 2 uncommitted changes');
    expect(rendered.filter((item) => item.dataset.ok === 'true')).toHaveLength(LANDING_CHECK_NAMES.length - 1);
    // No token while a check fails: there is nothing to confirm.
    expect(screen.getByText(/landing is refused until every check passes/i)).toBeInTheDocument();
    expect(screen.queryByLabelText(/type the confirmation token/i)).toBeNull();
  });

  it('keeps the landing disabled until the shown token is typed, then shows the merge commit', async () => {
    const { client, calls } = fakeClient({
      landingChecks: () => ({ ok: true, value: { checks: checks(), token: TOKEN, against_evidence: null, continues: null } }),
      confirmLanding: () => ({ ok: true, value: { landed: true, merge_commit: MERGE } }),
    });
    render(LandView, { props: { client, forkId: FORK_ID } });

    expect(await screen.findByTestId('landing-token')).toHaveTextContent(TOKEN);
    expect(screen.queryByTestId('against-evidence-warning')).toBeNull();
    expect(confirmButton()).toBeDisabled();
    const input = screen.getByLabelText(/type the confirmation token/i);
    await fireEvent.input(input, { target: { value: TOKEN.slice(0, 11) } });
    expect(confirmButton()).toBeDisabled();
    await fireEvent.click(confirmButton());
    expect(calls.some((c) => c.channel === 'confirmLanding')).toBe(false);

    await fireEvent.input(input, { target: { value: TOKEN } });
    expect(confirmButton()).toBeEnabled();
    await fireEvent.click(confirmButton());

    expect(await screen.findByTestId('merge-commit')).toHaveTextContent(MERGE);
    expect(calls.filter((c) => c.channel === 'confirmLanding')).toEqual([{ channel: 'confirmLanding', request: { fork_id: FORK_ID, token: TOKEN } }]);
  });

  it('after landing shows the landing and the checks that passed before it, never a FAIL or a refusal', async () => {
    let landed = false;
    const { client, emit } = fakeClient({
      forkOverview: () => ({ ok: true, value: overview(landed ? { landing: LANDED } : {}) }),
      landingChecks: () => ({ ok: true, value: landed ? { checks: afterLanding, token: null, against_evidence: null, continues: null } : { checks: checks(), token: TOKEN, against_evidence: null, continues: null } }),
      confirmLanding: () => {
        landed = true;
        return { ok: true, value: { landed: true, merge_commit: MERGE } };
      },
    });
    const { container } = render(LandView, { props: { client, forkId: FORK_ID } });
    await fireEvent.input(await screen.findByLabelText(/type the confirmation token/i), { target: { value: TOKEN } });
    await fireEvent.click(confirmButton());

    expect(await screen.findByTestId('merge-commit')).toHaveTextContent(MERGE);
    // The fork's own events arrive after the landing; the wizard does not judge a landed fork again.
    emit({ type: 'fork_state', fork_id: FORK_ID, state: 'landed', revision: 10 });
    expect(await screen.findByTestId('landed')).toHaveTextContent(`Landed. Merge commit ${MERGE} into main (local merge only; nothing was pushed).`);
    expect(screen.getByTestId('checks-before-landing')).toHaveTextContent('Every check passed when the landing was confirmed');
    const shown = screen.getAllByRole('listitem').filter((item) => item.dataset.check !== undefined);
    expect(shown.map((item) => item.dataset.ok)).toEqual(LANDING_CHECK_NAMES.map(() => 'true'));
    expect(container).not.toHaveTextContent('FAIL');
    expect(container).not.toHaveTextContent(/landing is refused/i);
    expect(container).not.toHaveTextContent('Nothing was changed');
    expect(screen.queryByLabelText(/type the confirmation token/i)).toBeNull();
  });

  it('opened on a fork that already landed says Landed plainly, without failing checks', async () => {
    const { client } = fakeClient({
      forkOverview: () => ({ ok: true, value: overview({ landing: LANDED }) }),
      landingChecks: () => ({ ok: true, value: { checks: afterLanding, token: null, against_evidence: null, continues: null } }),
    });
    const { container } = render(LandView, { props: { client, forkId: FORK_ID } });
    expect(await screen.findByTestId('landed')).toHaveTextContent(`Landed. Merge commit ${MERGE} into main`);
    expect(screen.getByTestId('checks-before-landing')).toHaveTextContent('This fork has already landed.');
    expect(container).not.toHaveTextContent('FAIL');
    expect(container).not.toHaveTextContent(/landing is refused/i);
    expect(screen.queryByRole('button', { name: 'Check again' })).toBeNull();
  });

  it('with no selection links to the Select view instead of naming a command', async () => {
    const { client } = fakeClient({
      forkOverview: () => ({ ok: true, value: overview({ selection: null }) }),
      landingChecks: () => ({ ok: false, error: { code: 'FORK_STATE_CONFLICT', message: `${FORK_ID} has no selection; run citadel fork select first` } }),
    });
    const { container } = render(LandView, { props: { client, forkId: FORK_ID } });
    expect(await screen.findByTestId('no-selection')).toHaveTextContent('No branch is selected yet');
    expect(screen.getByRole('link', { name: 'Select a branch' })).toHaveAttribute('href', `#/fork/${FORK_ID}/select`);
    expect(container).not.toHaveTextContent('citadel fork select');
    expect(container).not.toHaveTextContent('FORK_STATE_CONFLICT');
    expect(screen.queryByLabelText(/type the confirmation token/i)).toBeNull();
  });

  it('warns when the selection was made against the evidence, and not otherwise', async () => {
    const against = {
      branch_id: 'branch-codex',
      acknowledged: true as const,
      evidence: { outcome: 'recommend' as const, recommended_branch_id: 'branch-claude', verifier_status: 'failed' as const, status: 'failed' as const, failure_code: 'VERIFIER_FAILED', required_evidence: { required: 1, present: 1 } },
    };
    const { client } = fakeClient({ landingChecks: () => ({ ok: true, value: { checks: checks(), token: TOKEN, against_evidence: against, continues: null } }) });
    render(LandView, { props: { client, forkId: FORK_ID } });
    expect(await screen.findByTestId('against-evidence-warning')).toHaveTextContent(
      "Selected against the evidence. branch-codex's verifier failed (VERIFIER_FAILED); the comparison recommends branch-claude.",
    );
    // The warning informs; the token is still offered.
    expect(screen.getByTestId('landing-token')).toHaveTextContent(TOKEN);
  });

  it("says what landing a follow-up brings besides its own work: its parent's, unless that is in the target already", async () => {
    const continues = { parent_fork_id: 'fork-01jq7m3x9r2v5k8d4f6h0n1p2q', parent_branch_id: 'branch-codex', parent_result_commit: 'c'.repeat(40), in_target: false };
    const { client } = fakeClient({ landingChecks: () => ({ ok: true, value: { checks: checks(), token: TOKEN, against_evidence: null, continues } }) });
    render(LandView, { props: { client, forkId: FORK_ID } });
    const shown = await screen.findByTestId('land-continues');
    expect(shown).toHaveTextContent(`which is not in the target: the merge also brings the work of ${continues.parent_fork_id}/branch-codex (its result cccccccccccc), which Compare did not show`);
    expect(shown).toHaveClass('warn');
  });

    it('shows a refusal with its code and exactly its failing checks', async () => {
    const refusedWith = checks({ target_head_confirmed: 'target HEAD moved to eeeeeeeeeeee', confirmation_token: 'token does not match' });
    const refusal = new CitadelError('LANDING_PRECONDITION_FAILED', 'landing refused: target_head_confirmed; confirmation_token', {
      details: { checks: refusedWith, failed: ['target_head_confirmed', 'confirmation_token'] },
    });
    const { client } = fakeClient({
      landingChecks: () => ({ ok: true, value: { checks: checks(), token: TOKEN, against_evidence: null, continues: null } }),
      confirmLanding: () => ({ ok: false, error: refusal.toData() }),
    });
    render(LandView, { props: { client, forkId: FORK_ID } });

    await fireEvent.input(await screen.findByLabelText(/type the confirmation token/i), { target: { value: TOKEN } });
    await fireEvent.click(confirmButton());

    const result = (await screen.findByRole('heading', { name: /failing checks/i })).closest('section');
    if (result === null) throw new Error('failing checks outside the result step');
    expect(within(result).getByRole('alert')).toHaveTextContent('LANDING_PRECONDITION_FAILED');
    const failing = within(result)
      .getAllByRole('listitem')
      .filter((item) => item.dataset.check !== undefined);
    expect(failing.map((item) => item.dataset.check)).toEqual(['target_head_confirmed', 'confirmation_token']);
    expect(failing[0]).toHaveTextContent('target HEAD moved to eeeeeeeeeeee');
    expect(screen.queryByTestId('merge-commit')).toBeNull();
  });

  it('re-checks when the fork changes', async () => {
    let round = 0;
    const { client, emit } = fakeClient({
      landingChecks: () => {
        round += 1;
        return { ok: true, value: { checks: round === 1 ? checks() : checks({ selection_current: 'the fork changed after the selection' }), token: round === 1 ? TOKEN : null, against_evidence: null, continues: null } };
      },
    });
    render(LandView, { props: { client, forkId: FORK_ID } });
    expect(await screen.findByTestId('landing-token')).toBeInTheDocument();

    emit({ type: 'fork_state', fork_id: FORK_ID, state: 'ready', revision: 9 });

    expect(await screen.findByText('the fork changed after the selection')).toBeInTheDocument();
    expect(screen.queryByTestId('landing-token')).toBeNull();
  });
});
