import { render, screen } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import { CitadelError, type CitadelErrorData } from '../../shared/errors';
import { parseChannelRequest } from '../../shared/ipc/contract';
import ErrorState from '../../renderer/src/components/ErrorState.svelte';

/** Errors in plain words (issue 14 item 7): never a raw schema message, a regular expression or a code alone. */
describe('ErrorState', () => {
  it('shows a request the contract refused in words at each field, the code beside and the schema wording behind a disclosure', () => {
    const refused = parseChannelRequest('startFork', {
      objective: '',
      repo: '/repo',
      executors: { kind: 'executors', profiles: [{ profile_id: 'Not Valid', runtime: 'claude', model: null, local_provider: null, adapter_options: {} }] },
      workflow_file: null,
      budget_seconds: 0,
    });
    if (refused.ok) throw new Error('the contract accepted an empty objective');
    render(ErrorState, { props: { error: refused.error.toData(), title: 'Start was refused' } });
    const alert = screen.getByRole('alert');
    expect(alert).toHaveTextContent('Some of what was sent is missing or not in the expected form; each problem is listed below.');
    expect(alert).toHaveTextContent('IPC_REQUEST_INVALID');
    expect(alert).toHaveTextContent('objective: must not be empty');
    expect(alert).toHaveTextContent('budget seconds: must be at least 1');
    expect(alert).toHaveTextContent(/executors › profiles › 1 › profile id: "Not Valid" is not a profile id/);
    // zod's own wording and the patterns never show.
    expect(alert).not.toHaveTextContent(/Too small|Too big|expected string to have|\^\[a-z\]/);
    const detail = screen.getByText('Technical detail').closest('details');
    expect(detail).not.toHaveAttribute('open');
    expect(detail).toHaveTextContent('the startFork request does not match its schema');
  });

  it('explains a known code in words and keeps the orchestrator sentence below it', () => {
    render(ErrorState, { props: { error: { code: 'FORK_LOCKED', message: 'fork-01 is locked by pid 4242 since 20:01' } } });
    const alert = screen.getByRole('alert');
    expect(alert).toHaveTextContent('Another Citadel process is changing this fork right now; try again in a moment.');
    expect(alert).toHaveTextContent('fork-01 is locked by pid 4242 since 20:01');
    expect(alert).toHaveTextContent('FORK_LOCKED');
  });

  it('shows an unknown code by its own sentence, never the code alone', () => {
    render(ErrorState, { props: { error: { code: 'MERGE_CONFLICT', message: 'the selected branch conflicts with main in src/sum.js' } } });
    const text = screen.getByRole('alert').textContent ?? '';
    expect(text).toContain('the selected branch conflicts with main in src/sum.js');
    expect(text.replace('MERGE_CONFLICT', '').trim()).not.toBe('Something was refused');
    expect(screen.queryByText('Technical detail')).toBeNull();
  });

  it('shows a pattern given as a regular expression as a plain sentence', () => {
    render(ErrorState, { props: { error: { code: 'EXECUTOR_FILE_INVALID', message: 'invalid', violations: [{ path: '$.executors[0].model', rule: 'pattern_mismatch', message: '"a b" does not match /^[A-Za-z0-9]+$/' }] } } });
    const alert = screen.getByRole('alert');
    expect(alert).toHaveTextContent('executors › 1 › model: is not in the expected form');
    expect(alert).not.toHaveTextContent('/^[A-Za-z0-9]+$/');
  });

  it('shows a field by its label, never its $. path, which stays behind the disclosure', () => {
    const error: CitadelErrorData = {
      code: 'IPC_REQUEST_INVALID',
      message: 'the startFork request does not match its schema',
      violations: [{ path: '$.budget_seconds', rule: 'too_small', message: 'must be at least 1' }],
    };
    render(ErrorState, { props: { error } });
    const alert = screen.getByRole('alert');
    expect(alert).toHaveTextContent('budget seconds: must be at least 1');
    expect(visibleText(alert)).not.toContain('$.');
    const detail = screen.getByText('Technical detail').closest('details');
    expect(detail).not.toHaveAttribute('open');
    expect(detail).toHaveTextContent('$.budget_seconds too_small');
  });

  it('puts a message written for the terminal behind the disclosure and explains its code in words', () => {
    const refusal = new CitadelError(
      'ATTEMPTS_EXHAUSTED',
      'the contract allows 1 attempt per branch and this was attempt 1; mark it failed, or start a new fork with --max-attempts',
      { details: { attempt: 1, max_attempts: 1 } },
    );
    render(ErrorState, { props: { error: refusal.toData() } });
    const alert = screen.getByRole('alert');
    expect(alert).toHaveTextContent('This branch has used every attempt its fork allows (1 attempt per branch), so it cannot be retried.');
    expect(visibleText(alert)).not.toMatch(/--max-attempts|citadel /);
    expect(screen.getByText('Technical detail').closest('details')).toHaveTextContent('--max-attempts');
  });

  it('keeps a plain orchestrator sentence beside the explanation, and hides one that names a command', () => {
    const plain = render(ErrorState, { props: { error: { code: 'SELECTION_REFUSED', message: 'branch-a cannot be selected: it has no verified result (not collected)' } } });
    expect(visibleText(screen.getByRole('alert'))).toContain('branch-a cannot be selected: it has no verified result (not collected)');
    expect(screen.queryByText('Technical detail')).toBeNull();
    plain.unmount();

    render(ErrorState, { props: { error: { code: 'FORK_STATE_CONFLICT', message: 'fork-01 has no selection; run citadel fork select first' } } });
    const alert = screen.getByRole('alert');
    expect(visibleText(alert)).toContain('The fork is not in a state where this can be done.');
    expect(visibleText(alert)).not.toContain('citadel fork select');
    expect(screen.getByText('Technical detail').closest('details')).toHaveTextContent('run citadel fork select first');
  });
});

/** The text an operator sees: a closed disclosure shows only its summary. */
function visibleText(element: HTMLElement): string {
  const copy = element.cloneNode(true) as HTMLElement;
  for (const closed of copy.querySelectorAll('details:not([open])')) {
    for (const hidden of [...closed.children].filter((child) => child.tagName !== 'SUMMARY')) hidden.remove();
  }
  return copy.textContent ?? '';
}
