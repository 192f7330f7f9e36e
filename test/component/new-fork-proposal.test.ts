import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import type { WorkflowProposal } from '../../shared/fork/workflow-proposal';
import type { ChannelName, ChannelRequest, Reply } from '../../shared/ipc/contract';
import NewForkView from '../../renderer/src/views/NewForkView.svelte';
import { fakeClient } from './support/fake-client';
import { digest, readyPreview } from './support/fixtures';

/**
 * Issue 30 item 2: New Fork offers `citadel init`'s proposal with one click. The proposal is loaded
 * into the workflow editor with its reasons and sent as the edited workflow (it is no file); a
 * repository with nothing recognisable says what was found and opens no editor; a workflow found in
 * the repository is named as such.
 */
type Handlers = { [C in ChannelName]?: (request: ChannelRequest<C>) => Reply<C> | Promise<Reply<C>> };
const PAGE: Handlers = {
  sandboxReadiness: () => ({ ok: true, value: { backend: 'bubblewrap', ready: true, executable: '/usr/bin/bwrap', version: 'bubblewrap 0.8.0', problem: null, install: null } }),
  profileSets: () => ({ ok: true, value: { sets: [] } }),
};
const EXECUTORS = { executor_set_digest: digest('set'), profiles: [] };

const PROPOSED: NonNullable<WorkflowProposal['workflow']> = {
  schema_version: 2,
  steps: [{ id: 'implement', instruction: 'Make the change the objective asks for, in this worktree only.' }],
  verifier: { command: 'npm', args: ['test'], timeout_seconds: 1800 },
  protected_paths: ['test/**', 'package-lock.json', '.citadel/**'],
  setup: [{ id: 'npm-ci', command: 'npm', args: ['ci'], timeout_seconds: 1800, network: 'registries' }],
};

const PROPOSAL: WorkflowProposal = {
  repo: '/tmp/repo',
  workflow: PROPOSED,
  worktree_include: [],
  findings: [
    { part: 'setup', proposal: 'npm ci', evidence: 'package-lock.json' },
    { part: 'verifier', proposal: 'npm test', evidence: 'package.json scripts.test: node --test' },
    { part: 'note', proposal: 'the CI runs `npm run e2e`', evidence: '.github/workflows/ci.yml' },
  ],
};

async function fill(): Promise<void> {
  await fireEvent.input(screen.getByLabelText('Repository path'), { target: { value: '/tmp/repo' } });
  await fireEvent.input(screen.getByLabelText('Objective'), { target: { value: 'fix the bug' } });
}

describe('New Fork: the proposal from the repository', () => {
  it('one click loads the proposal into the editor with its reasons, and the preview sends it as the workflow', async () => {
    const { client, calls } = fakeClient({ ...PAGE, proposeWorkflow: () => ({ ok: true, value: PROPOSAL }), previewFork: () => ({ ok: true, value: readyPreview(EXECUTORS) }) });
    render(NewForkView, { props: { client } });
    const propose = screen.getByRole('button', { name: 'Propose from the repository' });
    // Nothing to read before a repository is named.
    expect(propose).toBeDisabled();
    await fill();
    await fireEvent.click(propose);
    expect(calls.find((c) => c.channel === 'proposeWorkflow')?.request).toEqual({ repo: '/tmp/repo' });

    const editor = (await screen.findByRole('heading', { name: 'Workflow' })).closest('section') as HTMLElement;
    expect(editor).toHaveTextContent('Proposed from the repository');
    const reasons = within(editor).getByRole('list', { name: 'Why this workflow was proposed' });
    expect(within(reasons).getAllByRole('listitem').map((item) => item.textContent?.trim())).toEqual([
      'package-lock.json → npm ci',
      'package.json scripts.test: node --test → npm test',
      'the CI runs `npm run e2e` (.github/workflows/ci.yml)',
    ]);
    expect(within(editor).getByLabelText('Verifier command')).toHaveValue('npm');
    expect(within(editor).getByLabelText('Command')).toHaveValue('npm');
    expect(within(editor).getByLabelText('Protected paths')).toHaveValue('test/**\npackage-lock.json\n.citadel/**');

    // Unedited, the proposal is still what is sent: it is no file the engine could read.
    await fireEvent.click(screen.getByRole('button', { name: 'Preview digests and argv' }));
    const sent = calls.filter((c) => c.channel === 'previewFork').at(-1)?.request as Record<string, unknown>;
    expect(sent.workflow_file).toBeNull();
    expect(sent.workflow).toEqual(PROPOSAL.workflow);
  });

  it('nothing recognisable: says what was found and opens no editor', async () => {
    const nothing: WorkflowProposal = { repo: '/tmp/repo', workflow: null, worktree_include: [], findings: [{ part: 'setup', proposal: 'npm ci', evidence: 'package-lock.json' }] };
    const { client } = fakeClient({ ...PAGE, proposeWorkflow: () => ({ ok: true, value: nothing }) });
    render(NewForkView, { props: { client } });
    await fill();
    await fireEvent.click(screen.getByRole('button', { name: 'Propose from the repository' }));
    expect(await screen.findByText(/No test command found in this repository/)).toBeInTheDocument();
    expect(within(screen.getByRole('list', { name: 'What was found' })).getByRole('listitem')).toHaveTextContent('package-lock.json: npm ci');
    expect(screen.queryByRole('heading', { name: 'Workflow' })).toBeNull();
  });

  it("Edit workflow with no file named asks for the repository's own workflow and names it when found", async () => {
    const { client, calls } = fakeClient({
      ...PAGE,
      workflowDocument: () => ({ ok: true, value: { source: 'file', document: { ...PROPOSED, setup: [] }, found_in_repository: '.citadel/workflow.json' } }),
      previewFork: () => ({ ok: true, value: readyPreview(EXECUTORS, { workflow: { source: 'file', found_in_repository: '.citadel/workflow.json', steps: ['implement'], setup: [], verifier: ['npm', 'test'], repository_file: null } }) }),
    });
    render(NewForkView, { props: { client } });
    await fill();
    await fireEvent.click(screen.getByRole('button', { name: 'Edit workflow' }));
    expect(calls.find((c) => c.channel === 'workflowDocument')?.request).toEqual({ workflow_file: null, repo: '/tmp/repo' });
    const editor = (await screen.findByRole('heading', { name: 'Workflow' })).closest('section') as HTMLElement;
    expect(editor).toHaveTextContent('Loaded from .citadel/workflow.json, found in the repository; unchanged');
    await fireEvent.click(screen.getByRole('button', { name: 'Preview digests and argv' }));
    expect(await screen.findByText(/Workflow: \.citadel\/workflow\.json \(found in the repository\)/)).toBeInTheDocument();
  });
});
