import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import type { ExecutorFile, ExecutorFileV2 } from '../../shared/executors/profile-schema';
import type { ProfileSet } from '../../shared/executors/profile-sets';
import ProfileSets from '../../renderer/src/components/ProfileSets.svelte';
import { ProfileDraft } from '../../renderer/src/lib/profile-draft.svelte';
import { fakeClient } from './support/fake-client';

/** Saved executor profile sets in New Fork (issue 14 item 5): the store is faked at the transport only. */
const AT = '2026-12-01T20:00:00.000Z';

function store(initial: ProfileSet[] = []) {
  let sets = initial;
  return fakeClient({
    profileSets: () => ({ ok: true, value: { sets } }),
    saveProfileSet: ({ name, file }) => {
      sets = [...sets.filter((s) => s.name !== name), { name, saved_at: AT, file }];
      return { ok: true, value: { sets } };
    },
    deleteProfileSet: ({ name }) => {
      sets = sets.filter((s) => s.name !== name);
      return { ok: true, value: { sets } };
    },
  });
}

const LOCAL: ExecutorFile = {
  schema_version: 1,
  executors: [
    { profile_id: 'codex-llama', runtime: 'codex', model: 'llama3.2', local_provider: 'ollama', adapter_options: {} },
    { profile_id: 'codex-qwen', runtime: 'codex', model: 'qwen3:8b', local_provider: 'lmstudio', adapter_options: { sandbox: 'workspace-write' } },
  ],
};

describe('saved profile sets', () => {
  it('saves the current profiles under a name, loads them back into the editor, and deletes them', async () => {
    const draft = new ProfileDraft();
    const { client, calls } = store();
    render(ProfileSets, { props: { client, draft } });
    expect(await screen.findByText(/No saved sets yet/)).toBeInTheDocument();

    const save = screen.getByRole('button', { name: 'Save these profiles' });
    expect(save).toBeDisabled();
    expect(save).toHaveAccessibleDescription('Name the set first.');
    await fireEvent.input(screen.getByLabelText('Set name'), { target: { value: 'Default pair' } });
    await fireEvent.click(save);
    expect(calls.find((c) => c.channel === 'saveProfileSet')?.request).toEqual({ name: 'Default pair', file: { schema_version: 1, executors: draft.profiles } });
    const list = await screen.findByRole('list', { name: 'Saved profile sets' });
    expect(within(list).getByText('Default pair')).toBeInTheDocument();

    // The editor changes; loading the set brings back exactly what was saved.
    draft.rows[0]!.profile_id = 'changed';
    await fireEvent.click(screen.getByRole('button', { name: 'Load Default pair' }));
    expect(draft.rows.map((r) => r.profile_id)).toEqual(['claude', 'codex']);
    expect(await screen.findByText('Loaded “Default pair”: 2 profiles.')).toBeInTheDocument();

    // Deleting asks first: Cancel (focused, the safe default) keeps the set and calls nothing.
    await fireEvent.click(screen.getByRole('button', { name: 'Delete Default pair' }));
    const confirm = screen.getByRole('group', { name: 'Delete the saved set “Default pair”?' });
    expect(within(confirm).getByRole('button', { name: 'Cancel' })).toHaveFocus();
    await fireEvent.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('group', { name: /Delete the saved set/ })).not.toBeInTheDocument();
    expect(calls.some((c) => c.channel === 'deleteProfileSet')).toBe(false);
    expect(within(list).getByText('Default pair')).toBeInTheDocument();

    await fireEvent.click(screen.getByRole('button', { name: 'Delete Default pair' }));
    await fireEvent.click(screen.getByRole('button', { name: 'Confirm delete' }));
    expect(calls.filter((c) => c.channel === 'deleteProfileSet').map((c) => c.request)).toEqual([{ name: 'Default pair' }]);
    expect(await screen.findByText(/No saved sets yet/)).toBeInTheDocument();
    expect(screen.getByText('Deleted “Default pair”.')).toBeInTheDocument();
  });

  it('loads a local-model set with its providers and options, and says a save replaces a set of that name', async () => {
    const draft = new ProfileDraft();
    render(ProfileSets, { props: { client: store([{ name: 'Local models', saved_at: AT, file: LOCAL }]).client, draft } });
    await fireEvent.click(await screen.findByRole('button', { name: 'Load Local models' }));
    expect(draft.profiles).toEqual(LOCAL.executors);
    expect(screen.getByRole('button', { name: 'Replace saved set' })).toHaveAccessibleDescription('Replaces the saved set “Local models”.');
  });

  it('saves and loads back a set of runtimes schema 1 does not know (gemini and qwen), as a schema 2 file', async () => {
    const MIXED: ExecutorFileV2 = {
      schema_version: 2,
      executors: [
        { profile_id: 'gemini-plan', runtime: 'gemini', model: 'gemini-2.5-pro', local_provider: null, adapter_options: { approval_mode: 'plan' } },
        { profile_id: 'qwen-local', runtime: 'qwen', model: 'qwen3:8b', local_provider: 'ollama', adapter_options: { approval_mode: 'auto-edit' } },
      ],
    };
    const draft = new ProfileDraft();
    const { client, calls } = store();
    render(ProfileSets, { props: { client, draft } });
    expect(draft.importText(JSON.stringify(MIXED))).toBe(true);
    await fireEvent.input(await screen.findByLabelText('Set name'), { target: { value: 'Gemini and Qwen' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Save these profiles' }));
    expect(calls.find((c) => c.channel === 'saveProfileSet')?.request).toEqual({ name: 'Gemini and Qwen', file: MIXED });
    const list = await screen.findByRole('list', { name: 'Saved profile sets' });
    expect(within(list).getByText('gemini-plan, qwen-local')).toBeInTheDocument();

    draft.rows[0]!.runtime = 'claude';
    await fireEvent.click(screen.getByRole('button', { name: 'Load Gemini and Qwen' }));
    expect(draft.file).toEqual(MIXED);
    expect(draft.profiles).toEqual(MIXED.executors);
  });

  it('offers no save while the profiles are invalid, and says why', async () => {
    const draft = new ProfileDraft();
    draft.rows[0]!.profile_id = 'Not A Profile Id';
    render(ProfileSets, { props: { client: store().client, draft } });
    await fireEvent.input(await screen.findByLabelText('Set name'), { target: { value: 'x' } });
    const save = screen.getByRole('button', { name: 'Save these profiles' });
    expect(save).toBeDisabled();
    expect(save).toHaveAccessibleDescription('Fix the executor profiles above first.');
  });

  it('says in words why a name cannot be used', async () => {
    render(ProfileSets, { props: { client: store().client, draft: new ProfileDraft() } });
    await fireEvent.input(await screen.findByLabelText('Set name'), { target: { value: ' padded' } });
    const save = screen.getByRole('button', { name: 'Save these profiles' });
    expect(save).toBeDisabled();
    expect(save).toHaveAccessibleDescription('A set name cannot start or end with a space.');
    expect(screen.getByLabelText('Set name')).toHaveAttribute('aria-invalid', 'true');
  });

  it('shows a damaged store in plain words, code beside, and keeps each violation at its place', async () => {
    const { client } = fakeClient({
      profileSets: () => ({
        ok: false,
        error: {
          code: 'PROFILE_SETS_INVALID',
          message: 'The saved profile sets file does not match its schema. Repair or move /root/settings/profile-sets.json; it is kept as it is.',
          violations: [{ path: '$.sets[0].name', rule: 'pattern_mismatch', message: '"x" does not match ^[a-z]+$' }],
        },
      }),
    });
    render(ProfileSets, { props: { client, draft: new ProfileDraft() } });
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('The saved profile sets cannot be used as they are stored. Nothing was changed or lost.');
    expect(alert).toHaveTextContent('PROFILE_SETS_INVALID');
    expect(alert).toHaveTextContent('Repair or move /root/settings/profile-sets.json');
    expect(alert).toHaveTextContent('sets › 1 › name: is not in the expected form');
    expect(alert).not.toHaveTextContent('^[a-z]+$');
    await waitFor(() => expect(screen.getByRole('button', { name: 'Save these profiles' })).toBeDisabled());
  });
});
