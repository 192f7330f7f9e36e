import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import type { InlineWorkflow } from '../../shared/fork/workflow';
import type { ChannelName, ChannelRequest, Reply } from '../../shared/ipc/contract';
import type { RuntimeReadiness } from '../../shared/runtime/readiness';
import NewForkView from '../../renderer/src/views/NewForkView.svelte';
import { fakeClient, type FakeClient } from './support/fake-client';
import { digest, NO_FIELD_PROBLEMS, readyPreview } from './support/fixtures';

const RUNTIMES: Record<string, RuntimeReadiness> = {
  claude: { runtime: 'claude', executable: { name: 'claude', found: true, path: '/usr/bin/claude', via: 'path', version: '2.1.328', problem: null }, credentials: { configured: true, sources: ['ANTHROPIC_API_KEY'] }, credential: { kind: 'env_api_key', label: 'API key from the environment (ANTHROPIC_API_KEY)', expires_at: null, refreshable: false } },
  codex: { runtime: 'codex', executable: { name: 'codex', found: false, path: null, via: null, version: null, problem: 'not found on PATH' }, credentials: { configured: false, sources: [] }, credential: { kind: 'missing', label: 'none found: set OPENAI_API_KEY or run `codex login`', expires_at: null, refreshable: false } },
};

type Handlers = { [C in ChannelName]?: (request: ChannelRequest<C>) => Reply<C> | Promise<Reply<C>> };

/** What the page asks on its own as it opens (the sandbox under the default containment, the saved sets of the default profile editor), and codex not installed. */
const PAGE: Handlers = {
  sandboxReadiness: () => ({ ok: true, value: { backend: 'bubblewrap', ready: true, executable: '/usr/bin/bwrap', version: 'bubblewrap 0.8.0', problem: null, install: null } }),
  profileSets: () => ({ ok: true, value: { sets: [] } }),
  runtimeReadiness: ({ runtime }) => {
    const found = RUNTIMES[runtime];
    return found === undefined ? { ok: false, error: { code: 'RUNTIME_UNKNOWN', message: runtime } } : { ok: true, value: found };
  },
};
const page = (handlers: Handlers = {}): ReturnType<typeof fakeClient> => fakeClient({ ...PAGE, ...handlers });

const EXECUTORS = { executor_set_digest: digest('set'), profiles: [] };
const notARepo = readyPreview(EXECUTORS, {
  ready: false,
  fields: { ...NO_FIELD_PROBLEMS, repo: { problems: [{ code: 'REPOSITORY_INVALID', message: '/tmp/x is not a usable git repository (not a repository)' }], warnings: [] } },
  repository: null,
});
const dirty = readyPreview(EXECUTORS, {
  fields: { ...NO_FIELD_PROBLEMS, repo: { problems: [], warnings: ['The repository has uncommitted changes; they are not part of the fork, which starts from HEAD aaaaaaaaaaaa on main.'] } },
  repository: { root: '/tmp/repo', head: 'a'.repeat(40), branch: 'main', dirty: true, worktree_include: null },
});
const INCLUDED = { files: [{ path: '.env', size_bytes: 24 }, { path: 'config/local.json', size_bytes: 35 }], digest: digest('include list'), confirmed: false };
const withIncludes = (confirmed: boolean) => readyPreview(EXECUTORS, { repository: { root: '/tmp/repo', head: 'a'.repeat(40), branch: 'main', dirty: false, worktree_include: { ...INCLUDED, confirmed } } });

async function fill(repo: string): Promise<void> {
  await fireEvent.input(screen.getByLabelText('Repository path'), { target: { value: repo } });
  await fireEvent.input(screen.getByLabelText('Objective'), { target: { value: 'fix the bug' } });
}

const preview = (): Promise<boolean> => fireEvent.click(screen.getByRole('button', { name: 'Preview digests and argv' }));

/** New Fork filled and previewed on a repository whose .worktreeinclude names two files; Start is answered with a refusal. */
async function previewedWithIncludes(confirmed: boolean): Promise<FakeClient['calls']> {
  const { client, calls } = page({
    previewFork: () => ({ ok: true, value: withIncludes(confirmed) }),
    startFork: () => ({ ok: false, error: { code: 'SANDBOX_UNAVAILABLE', message: 'bwrap is not on PATH' } }),
  });
  render(NewForkView, { props: { client } });
  await fill('/tmp/repo');
  await preview();
  return calls;
}

describe('New Fork checks the form before Start', () => {
  it('shows a repository problem at the repository field and keeps Start disabled', async () => {
    const { client } = page({ previewFork: () => ({ ok: true, value: notARepo }) });
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
    // Nothing was edited since that preview: it is not called out of date (issue 29).
    expect(screen.queryByText(/The form changed since this preview/)).toBeNull();
  });

  it('shows warnings and allows Start', async () => {
    const { client } = page({ previewFork: () => ({ ok: true, value: dirty }) });
    render(NewForkView, { props: { client } });
    await fill('/tmp/repo');
    await preview();
    expect(await screen.findByText(/uncommitted changes; they are not part of the fork/)).toBeInTheDocument();
    expect(screen.queryByRole('list', { name: 'Files copied from .worktreeinclude' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Start fork' })).toBeEnabled();
  });

  it('lists the .worktreeinclude files with their sizes; Start waits for their tick, which sends the list digest', async () => {
    const calls = await previewedWithIncludes(false);
    const list = await screen.findByRole('list', { name: 'Files copied from .worktreeinclude' });
    expect([...list.querySelectorAll('li')].map((li) => li.textContent)).toEqual(['.env · 24 bytes', 'config/local.json · 35 bytes']);
    const start = screen.getByRole('button', { name: 'Start fork' });
    expect(start).toBeDisabled();
    expect(screen.getByText(/if the agents may have them/)).toBeInTheDocument();

    await fireEvent.click(screen.getByRole('checkbox', { name: /may have these files/ }));
    expect(start).toBeEnabled();
    await fireEvent.click(start);
    await screen.findByText('The fork was not started');
    expect(calls.find((c) => c.channel === 'startFork')?.request).toMatchObject({ repo: '/tmp/repo', include_confirmed: INCLUDED.digest });
  });

  it('a list confirmed before is shown without a tick, and starts with no confirmation sent', async () => {
    const calls = await previewedWithIncludes(true);
    expect(await screen.findByText('You confirmed this list for this repository before.')).toBeInTheDocument();
    expect(screen.queryByRole('checkbox', { name: /may have these files/ })).toBeNull();
    await fireEvent.click(screen.getByRole('button', { name: 'Start fork' }));
    await screen.findByText('The fork was not started');
    expect(calls.find((c) => c.channel === 'startFork')?.request).toMatchObject({ include_confirmed: null });
  });

  it('unticks a runtime that is not installed, saying why, when the runtimes are chosen by name', async () => {
    const { client } = page();
    render(NewForkView, { props: { client } });
    await fireEvent.click(screen.getByRole('radio', { name: 'Runtimes (legacy, schema 1)' }));
    const codex = await screen.findByRole('checkbox', { name: /codex/ });
    await expect.poll(() => (codex as HTMLInputElement).checked).toBe(false);
    expect(codex.closest('label')).toHaveTextContent('not installed here: not found on PATH');
    expect(screen.getByRole('checkbox', { name: /claude/ })).toBeChecked();
  });

  it('drops an old start error once the form is previewed again', async () => {
    const { client } = page({
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

  it('edits the loaded workflow: a bad field is explained in words, and what is edited is what is sent', async () => {
    const loaded: InlineWorkflow = {
      schema_version: 2,
      steps: [{ id: 'fix', instruction: 'Fix it.' }],
      verifier: { command: 'npm', args: ['test'], timeout_seconds: 300 },
      protected_paths: ['test/**'],
      setup: [{ id: 'install', command: 'npm', args: ['ci'], timeout_seconds: 600, network: 'registries' }],
    };
    const { client, calls } = page({
      workflowDocument: () => ({ ok: true, value: { source: 'file', document: loaded, found_in_repository: null } }),
      previewFork: () => ({ ok: true, value: dirty }),
    });
    render(NewForkView, { props: { client } });
    await fill('/tmp/repo');
    await fireEvent.input(screen.getByLabelText('Workflow file (optional)'), { target: { value: '/tmp/repo/workflow.json' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Edit workflow' }));
    const editor = (await screen.findByRole('heading', { name: 'Workflow' })).closest('section') as HTMLElement;
    expect(calls.find((c) => c.channel === 'workflowDocument')?.request).toEqual({ workflow_file: '/tmp/repo/workflow.json' });
    expect(within(editor).getByLabelText('Verifier command')).toHaveValue('npm');
    expect(within(editor).getByLabelText('Command')).toHaveValue('npm');
    expect(within(editor).getByLabelText('Network')).toHaveValue('registries');

    // Unchanged, the file itself is what starts.
    await preview();
    const sent = (): Record<string, unknown> => calls.filter((c) => c.channel === 'previewFork').at(-1)?.request as Record<string, unknown>;
    expect(sent().workflow_file).toBe('/tmp/repo/workflow.json');
    expect(sent()).not.toHaveProperty('workflow');

    // A path is not a bare command: said at the field, in words, and nothing can be previewed.
    const command = within(editor).getByLabelText('Command');
    await fireEvent.input(command, { target: { value: '/usr/bin/npm' } });
    expect(command).toHaveAttribute('aria-invalid', 'true');
    expect(command).toHaveAccessibleDescription(/"\/usr\/bin\/npm" is not a bare executable name, resolved on PATH/);
    expect(screen.getByRole('button', { name: 'Preview digests and argv' })).toBeDisabled();
    await fireEvent.input(command, { target: { value: 'npm' } });

    // Add a second step, move it first, and preview: the edited workflow is sent in that order.
    await fireEvent.click(within(editor).getByRole('button', { name: 'Add a setup step' }));
    const ids = within(editor).getAllByLabelText('Step ID');
    await fireEvent.input(ids[1] as HTMLElement, { target: { value: 'venv' } });
    await fireEvent.input(within(editor).getAllByLabelText('Command')[1] as HTMLElement, { target: { value: 'python3' } });
    await fireEvent.input(within(editor).getAllByLabelText('Arguments')[1] as HTMLElement, { target: { value: '-m\nvenv\n.venv' } });
    await fireEvent.click(within(editor).getByRole('button', { name: 'Move setup step 2 up' }));
    await preview();
    // Sent with the file it was edited from: the engine, not the form, keeps that file protected.
    expect(sent().workflow_file).toBe('/tmp/repo/workflow.json');
    expect(sent().workflow).toEqual({
      ...loaded,
      setup: [{ id: 'venv', command: 'python3', args: ['-m', 'venv', '.venv'], timeout_seconds: 600, network: 'none' }, loaded.setup[0]],
    });

    // Discarding the edits goes back to the file.
    await fireEvent.click(within(editor).getByRole('button', { name: 'Discard edits' }));
    await preview();
    expect(sent().workflow_file).toBe('/tmp/repo/workflow.json');
    expect(sent()).not.toHaveProperty('workflow');
  });
});
