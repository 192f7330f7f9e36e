import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import type { ReadinessReport } from '../../shared/runtime/readiness';
import NewForkView from '../../renderer/src/views/NewForkView.svelte';
import { fakeClient } from './support/fake-client';
import { digest, readyPreview } from './support/fixtures';

const codexMissing: ReadinessReport = {
  runtimes: [
    { runtime: 'claude', executable: { name: 'claude', found: true, path: '/usr/bin/claude', via: 'path', version: '2.1.328', problem: null }, credentials: { configured: true, sources: ['ANTHROPIC_API_KEY'] } },
    { runtime: 'codex', executable: { name: 'codex', found: false, path: null, via: null, version: null, problem: 'not found on PATH' }, credentials: { configured: false, sources: [] } },
  ],
  local_providers: [],
};

const EXECUTORS = { executor_set_digest: digest('set'), profiles: [] };
const notARepo = readyPreview(EXECUTORS, {
  ready: false,
  fields: {
    objective: { problems: [], warnings: [] },
    repo: { problems: [{ code: 'REPOSITORY_INVALID', message: '/tmp/x is not a usable git repository (not a repository)' }], warnings: [] },
    executors: { problems: [], warnings: [] },
    workflow_file: { problems: [], warnings: [] },
  },
  repository: null,
});
const dirty = readyPreview(EXECUTORS, {
  fields: {
    objective: { problems: [], warnings: [] },
    repo: { problems: [], warnings: ['The repository has uncommitted changes; they are not part of the fork, which starts from HEAD aaaaaaaaaaaa on main.'] },
    executors: { problems: [], warnings: [] },
    workflow_file: { problems: [], warnings: [] },
  },
  repository: { root: '/tmp/repo', head: 'a'.repeat(40), branch: 'main', dirty: true, worktree_include: ['.env', 'config/local.json'] },
});

async function fill(repo: string): Promise<void> {
  await fireEvent.input(screen.getByLabelText('Repository path'), { target: { value: repo } });
  await fireEvent.input(screen.getByLabelText('Objective'), { target: { value: 'fix the bug' } });
}

const preview = (): Promise<boolean> => fireEvent.click(screen.getByRole('button', { name: 'Preview digests and argv' }));

describe('New Fork checks the form before Start', () => {
  it('shows a repository problem at the repository field and keeps Start disabled', async () => {
    const { client } = fakeClient({ readiness: () => ({ ok: true, value: codexMissing }), previewFork: () => ({ ok: true, value: notARepo }) });
    render(NewForkView, { props: { client } });
    await fill('/tmp/x');
    await preview();
    const field = screen.getByLabelText('Repository path');
    await within(document.getElementById('repo-check') as HTMLElement).findByText('/tmp/x is not a usable git repository (not a repository)');
    // The message is the field's description, so a screen reader reads it with the field.
    expect(field).toHaveAttribute('aria-invalid', 'true');
    expect(field).toHaveAccessibleDescription(/not a usable git repository/);
    expect(screen.getByRole('alert')).toHaveTextContent('see the problems marked at their fields above');
    expect(screen.getByRole('button', { name: 'Start fork' })).toBeDisabled();
  });

  it('shows warnings and the .worktreeinclude names, and allows Start', async () => {
    const { client } = fakeClient({ readiness: () => ({ ok: true, value: codexMissing }), previewFork: () => ({ ok: true, value: dirty }) });
    render(NewForkView, { props: { client } });
    await fill('/tmp/repo');
    await preview();
    expect(await screen.findByText(/uncommitted changes; they are not part of the fork/)).toBeInTheDocument();
    expect(screen.getByText('.env')).toBeInTheDocument();
    expect(screen.getByText('config/local.json')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Start fork' })).toBeEnabled();
  });

  it('unticks a runtime that is not installed, saying why', async () => {
    const { client } = fakeClient({ readiness: () => ({ ok: true, value: codexMissing }) });
    render(NewForkView, { props: { client } });
    const codex = await screen.findByRole('checkbox', { name: /codex/ });
    await expect.poll(() => (codex as HTMLInputElement).checked).toBe(false);
    expect(codex.closest('label')).toHaveTextContent('not installed here: not found on PATH');
    expect(screen.getByRole('checkbox', { name: /claude/ })).toBeChecked();
  });

  it('drops an old start error once the form is previewed again', async () => {
    const { client } = fakeClient({
      readiness: () => ({ ok: true, value: codexMissing }),
      previewFork: () => ({ ok: true, value: dirty }),
      startFork: () => ({ ok: false, error: { code: 'SANDBOX_UNAVAILABLE', message: 'bwrap is not on PATH' } }),
    });
    render(NewForkView, { props: { client } });
    await fill('/tmp/repo');
    await preview();
    await screen.findByText(/executor set digest/);
    await fireEvent.click(screen.getByRole('button', { name: 'Start fork' }));
    expect(await screen.findByText('The fork was not started')).toBeInTheDocument();
    await preview();
    await expect.poll(() => screen.queryByText('The fork was not started')).toBeNull();
  });
});
