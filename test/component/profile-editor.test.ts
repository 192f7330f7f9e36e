import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import { executorSetDigest, profileDigest } from '../../shared/executors/executor-digests';
import { ExecutorProfileSchema } from '../../shared/executors/profile-schema';
import ProfileEditor from '../../renderer/src/components/ProfileEditor.svelte';
import { ProfileDraft } from '../../renderer/src/lib/profile-draft.svelte';

const fieldOf = (input: HTMLElement): HTMLElement => {
  const field = input.closest<HTMLElement>('[data-path]');
  if (field === null) throw new Error('the control is not inside a field');
  return field;
};

function renderEditor(draft = new ProfileDraft()) {
  render(ProfileEditor, { props: { draft } });
  return draft;
}

const loadFile = async (text: string): Promise<void> => {
  const input = screen.getByLabelText(/load an executors file/i);
  await fireEvent.change(input, { target: { files: [new File([text], 'executors.json', { type: 'application/json' })] } });
};

describe('profile editor', () => {
  it('shows the forbidden_value error at the permission-mode field while bypassPermissions is typed', async () => {
    const draft = renderEditor();
    const mode = screen.getByLabelText('permission mode');
    expect(mode).toHaveAttribute('aria-invalid', 'false');

    await fireEvent.input(mode, { target: { value: 'bypassPermissions' } });

    const field = fieldOf(mode);
    expect(field).toHaveAttribute('data-path', '$.executors[0].adapter_options.permission_mode');
    expect(within(field).getByText(/bypassPermissions" is refused/)).toHaveAttribute('data-rule', 'forbidden_value');
    expect(mode).toHaveAttribute('aria-invalid', 'true');
    expect(mode.getAttribute('aria-describedby')).toContain(within(field).getByRole('list').id);
    // The error is at that field only: no other field reports anything.
    expect(draft.violations.map((v) => v.path)).toEqual(['$.executors[0].adapter_options.permission_mode']);
    expect(screen.queryByTestId('executor-set-digest')).toBeNull();

    await fireEvent.input(mode, { target: { value: 'plan' } });
    expect(within(field).queryByRole('listitem')).toBeNull();
    expect(screen.getByTestId('executor-set-digest')).toBeInTheDocument();
  });

  it('shows the error at the field when a loaded file asks for bypassPermissions', async () => {
    renderEditor();
    await loadFile(
      JSON.stringify({
        schema_version: 1,
        executors: [
          { profile_id: 'a', runtime: 'codex', model: null, local_provider: null, adapter_options: {} },
          { profile_id: 'b', runtime: 'claude', model: null, local_provider: null, adapter_options: { permission_mode: 'bypassPermissions' } },
        ],
      }),
    );
    const field = await screen.findByText(/bypassPermissions" is refused/);
    expect(field.closest('[data-path]')).toHaveAttribute('data-path', '$.executors[1].adapter_options.permission_mode');
  });

  it('reports a local provider on claude at the local-provider field, shown while it is set', async () => {
    renderEditor();
    // Claude reaches no local provider: its profile has no such field until a file sets one.
    expect(screen.getAllByLabelText('Local provider')).toHaveLength(1);
    await loadFile(
      JSON.stringify({
        schema_version: 1,
        executors: [
          { profile_id: 'a', runtime: 'claude', model: 'qwen3', local_provider: 'ollama', adapter_options: {} },
          { profile_id: 'b', runtime: 'codex', model: null, local_provider: null, adapter_options: {} },
        ],
      }),
    );
    const [claudeProvider] = screen.getAllByLabelText('Local provider');
    if (claudeProvider === undefined) throw new Error('no provider field');
    const field = fieldOf(claudeProvider);
    expect(field).toHaveAttribute('data-path', '$.executors[0].local_provider');
    expect(within(field).getByText(/allowed only with the codex runtime/)).toHaveAttribute('data-rule', 'provider_requires_codex');
    await fireEvent.change(claudeProvider, { target: { value: '' } });
    expect(screen.getAllByLabelText('Local provider')).toHaveLength(1);
  });

  it('shows file-level violations above the profiles', async () => {
    const draft = renderEditor();
    const [removeFirst] = screen.getAllByRole('button', { name: /remove profile/i });
    if (removeFirst === undefined) throw new Error('no remove button');
    await fireEvent.click(removeFirst);
    expect(draft.rows).toHaveLength(1);
    expect(screen.getByText(/at least 2 profiles are required/)).toHaveAttribute('data-rule', 'too_few_profiles');
  });

  it('previews the digests of a valid file by the shared digest rules', async () => {
    const draft = renderEditor();
    await loadFile(
      JSON.stringify({
        schema_version: 1,
        executors: [
          { profile_id: 'codex-local-qwen', runtime: 'codex', model: 'qwen3-coder:30b', local_provider: 'ollama', adapter_options: { sandbox: 'workspace-write' } },
          { profile_id: 'claude-sonnet', runtime: 'claude', model: 'claude-sonnet-4-5', local_provider: null, adapter_options: { permission_mode: 'dontAsk', effort: 'high' } },
        ],
      }),
    );
    expect(draft.importProblem).toBeNull();
    const profiles = [
      ExecutorProfileSchema.parse({ profile_id: 'codex-local-qwen', runtime: 'codex', model: 'qwen3-coder:30b', local_provider: 'ollama', adapter_options: { sandbox: 'workspace-write' } }),
      ExecutorProfileSchema.parse({ profile_id: 'claude-sonnet', runtime: 'claude', model: 'claude-sonnet-4-5', local_provider: null, adapter_options: { permission_mode: 'dontAsk', effort: 'high' } }),
    ];
    expect(await screen.findByTestId('executor-set-digest')).toHaveTextContent(executorSetDigest(profiles));
    const rows = screen.getAllByRole('row').slice(1);
    // Canonical order is by profile_id, whatever the file order.
    expect(rows.map((row) => within(row).getAllByRole('cell')[1]?.textContent)).toEqual(['branch-claude-sonnet', 'branch-codex-local-qwen']);
    for (const profile of profiles) {
      expect(screen.getByTitle(profileDigest(profile))).toBeInTheDocument();
    }
  });

  it('refuses to load a file it cannot show exactly, listing its violations', async () => {
    const draft = renderEditor();
    const before = JSON.stringify(draft.file);
    await loadFile(
      JSON.stringify({
        schema_version: 1,
        executors: [
          { profile_id: 'a', runtime: 'claude', model: null, local_provider: null, adapter_options: { sandbox: 'read-only' } },
          { profile_id: 'b', runtime: 'codex', model: null, local_provider: null, adapter_options: {}, hooks: [] },
        ],
      }),
    );
    const alert = await screen.findByRole('alert');
    // Each place in words, never as a JSON path; the rule's name stays in the markup only.
    expect(alert).toHaveTextContent('Profile 1, sandbox:');
    expect(alert).toHaveTextContent('Profile 2, hooks:');
    expect(alert).not.toHaveTextContent('$.');
    expect(alert.querySelector('[data-rule="option_for_other_runtime"]')).not.toBeNull();
    expect(JSON.stringify(draft.file)).toBe(before);
  });
});
