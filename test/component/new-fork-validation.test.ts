import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import type { ChannelName, ChannelRequest, Reply } from '../../shared/ipc/contract';
import { EXECUTOR_RUNTIME_IDS } from '../../shared/executors/profile-schema';
import type { StartPreview } from '../../shared/fork/start-preview';
import NewForkView from '../../renderer/src/views/NewForkView.svelte';
import { fakeClient } from './support/fake-client';
import { digest, NO_FIELD_PROBLEMS, readyPreview } from './support/fixtures';

type Handlers = { [C in ChannelName]?: (request: ChannelRequest<C>) => Reply<C> | Promise<Reply<C>> };

const PAGE: Handlers = {
  sandboxReadiness: () => ({ ok: true, value: { backend: 'bubblewrap', ready: true, executable: '/usr/bin/bwrap', version: 'bubblewrap 0.8.0', problem: null, install: null } }),
  profileSets: () => ({ ok: true, value: { sets: [] } }),
};
const page = (handlers: Handlers = {}): ReturnType<typeof fakeClient> => fakeClient({ ...PAGE, ...handlers });

const EXECUTORS = { executor_set_digest: digest('set'), profiles: [] };
const problem = (code: string, message: string) => ({ problems: [{ code, message }], warnings: [] });

/** What the orchestrator's preview answers for budget 0, attempts −2, a token budget of 1.5, a `~` repository and a missing workflow file. */
const everyProblem: StartPreview = readyPreview(EXECUTORS, {
  ready: false,
  fields: {
    ...NO_FIELD_PROBLEMS,
    repo: problem('REPOSITORY_INVALID', '"~" is not expanded here; write the full path, for example /home/alice/project.'),
    workflow_file: problem('WORKFLOW_FILE_UNREADABLE', 'There is no file at /tmp/none.json.'),
    budget_seconds: problem('BUDGET_INVALID', 'The time budget must be a whole number of seconds from 1 to 604800 (7 days), not 0.'),
    max_attempts: problem('BUDGET_INVALID', 'Attempts per branch must be a whole number from 1 to 10, not -2.'),
    budget_tokens: problem('BUDGET_INVALID', 'The token budget must be a whole number of tokens from 1 to 1,000,000,000, not 1.5.'),
  },
  repository: null,
  workflow: null,
});

const OLLAMA = { provider: 'ollama' as const, base_url: 'http://127.0.0.1:11434', reachable: true, version: '0.14.0', version_supported: true, models: ['qwen3:8b'], problem: null };

async function fill(values: Record<string, string>): Promise<void> {
  for (const [label, value] of Object.entries(values)) await fireEvent.input(screen.getByLabelText(label), { target: { value } });
}

describe('New Fork: defaults', () => {
  it('opens on executor profiles, asking each runtime its readiness once and no local provider', async () => {
    const { client, calls } = page();
    render(NewForkView, { props: { client } });
    expect(screen.getByRole('radio', { name: 'Executor profiles (schema 2)' })).toBeChecked();
    expect(screen.getByRole('radio', { name: 'Runtimes (legacy, schema 1)' })).not.toBeChecked();
    expect(screen.getAllByLabelText('Profile ID').map((input) => (input as HTMLInputElement).value)).toEqual(['claude', 'codex']);
    await screen.findByText(/bubblewrap 0\.8\.0/);
    const probed = calls.filter((c) => c.channel === 'runtimeReadiness').map((c) => (c.request as { runtime: string }).runtime);
    expect(probed).toEqual(EXECUTOR_RUNTIME_IDS);
    expect(calls.map((c) => c.channel).filter((c) => c !== 'sandboxReadiness' && c !== 'profileSets' && c !== 'runtimeReadiness')).toEqual([]);
    expect(screen.queryByRole('heading', { name: 'Local models' })).toBeNull();
  });

  it('loads the local models once a profile chooses a local provider, and a listed model fills that profile', async () => {
    const { client, calls } = page({ localProviderReadiness: () => ({ ok: true, value: { providers: [OLLAMA] } }) });
    render(NewForkView, { props: { client } });
    // Claude reaches no local provider, so only the second profile (codex) has the field.
    const [codexProvider, other] = screen.getAllByLabelText('Local provider');
    if (codexProvider === undefined || other !== undefined) throw new Error('expected the local-provider field on the codex profile only');
    await fireEvent.change(codexProvider, { target: { value: 'ollama' } });
    const panel = (await screen.findByRole('heading', { name: 'Local models' })).closest('section') as HTMLElement;
    await within(panel).findByText('qwen3:8b');
    expect(calls.filter((c) => c.channel === 'localProviderReadiness')).toHaveLength(1);
    await fireEvent.click(within(panel).getByRole('button', { name: 'Use qwen3:8b in a profile' }));
    // The profile that chose Ollama without a model takes it; no third profile appears.
    expect(screen.getAllByLabelText('Model').map((input) => (input as HTMLInputElement).value)).toEqual(['', 'qwen3:8b']);
  });

  it('says before Start that the built-in verifier only runs git diff --check', async () => {
    const builtin = readyPreview(EXECUTORS, {
      fields: { ...NO_FIELD_PROBLEMS, workflow_file: { problems: [], warnings: ['No verifier command: each branch is checked only by git diff --check (whitespace errors).'] } },
    });
    const { client } = page({ previewFork: () => ({ ok: true, value: builtin }) });
    render(NewForkView, { props: { client } });
    await fill({ 'Repository path': '/tmp/repo', Objective: 'fix the bug' });
    await fireEvent.click(screen.getByRole('button', { name: 'Preview digests and argv' }));
    expect(await screen.findByText(/only: nothing tests the change/)).toBeInTheDocument();
    expect(screen.getByLabelText('Workflow file (optional)')).toHaveAccessibleDescription(/checked only by git diff --check/);
  });
});

describe('New Fork: every problem at its field at once', () => {
  it('sends the numbers as entered and shows each problem at its own field, in words', async () => {
    const { client, calls } = page({ previewFork: () => ({ ok: true, value: everyProblem }) });
    render(NewForkView, { props: { client } });
    await fill({
      'Repository path': '~/project',
      Objective: 'fix the bug',
      'Workflow file (optional)': '/tmp/none.json',
      'Time budget per branch, seconds (optional)': '0',
      'Attempts per branch (optional)': '-2',
      'Token budget per branch (optional)': '1.5',
    });
    await fireEvent.click(screen.getByRole('button', { name: 'Preview digests and argv' }));
    await screen.findByText(/not 0\./);
    expect(calls.find((c) => c.channel === 'previewFork')?.request).toMatchObject({ repo: '~/project', budget_seconds: 0, max_attempts: -2, budget_tokens: 1.5 });
    const expectations: [string, RegExp][] = [
      ['Repository path', /"~" is not expanded here/],
      ['Workflow file (optional)', /There is no file at \/tmp\/none\.json/],
      ['Time budget per branch, seconds (optional)', /from 1 to 604800 \(7 days\), not 0/],
      ['Attempts per branch (optional)', /from 1 to 10, not -2/],
      ['Token budget per branch (optional)', /not 1\.5/],
    ];
    for (const [label, message] of expectations) {
      const field = screen.getByLabelText(label);
      expect(field).toHaveAttribute('aria-invalid', 'true');
      expect(field).toHaveAccessibleDescription(message);
    }
    expect(screen.getByRole('alert')).toHaveTextContent('see the problems marked at their fields above');
    expect(screen.queryByText('Technical detail')).toBeNull();
    expect(document.body.textContent).not.toMatch(/\$\.|--budget|--max-attempts/);
    expect(screen.getByRole('button', { name: 'Start fork' })).toBeDisabled();
  });

  it('says at once that text in a number field is not a number, and keeps Start waiting', async () => {
    const { client } = page({ previewFork: () => ({ ok: true, value: readyPreview(EXECUTORS) }) });
    render(NewForkView, { props: { client } });
    await fill({ 'Repository path': '/tmp/repo', Objective: 'fix the bug' });
    const tokens = screen.getByLabelText('Token budget per branch (optional)');
    // What a browser reports for "1e" in a number field: no value, and bad input.
    Object.defineProperty(tokens, 'validity', { value: { badInput: true }, configurable: true });
    await fireEvent.input(tokens, { target: { value: '' } });
    expect(tokens).toHaveAccessibleDescription(/This is not a number/);
    await fireEvent.click(screen.getByRole('button', { name: 'Preview digests and argv' }));
    await screen.findByText(/executor set digest/);
    expect(screen.getByRole('button', { name: 'Start fork' })).toBeDisabled();
    Object.defineProperty(tokens, 'validity', { value: { badInput: false }, configurable: true });
    await fireEvent.input(tokens, { target: { value: '5000' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Preview digests and argv' }));
    await expect.poll(() => screen.getByRole('button', { name: 'Start fork' })).toBeEnabled();
  });
});
