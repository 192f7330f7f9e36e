import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import { EXECUTOR_RUNTIMES, EXECUTOR_RUNTIME_IDS } from '../../shared/executors/profile-schema';
import type { Reply } from '../../shared/ipc/contract';
import type { RuntimeReadiness } from '../../shared/runtime/readiness';
import ProfileEditor from '../../renderer/src/components/ProfileEditor.svelte';
import { ProfileDraft } from '../../renderer/src/lib/profile-draft.svelte';

/**
 * Issue 31 item 5: New Fork's profile editor offers every runtime the shared descriptors name,
 * each with its readiness here and the reason when it cannot run, and each runtime's own options
 * and local providers (none for a runtime that reaches no local model server).
 */

const NOT_FOUND = 'RUNTIME_NOT_FOUND: "gemini" was not found on PATH (it installs from the npm package @google/gemini-cli)';

function readiness(runtime: string, found: boolean): Reply<'runtimeReadiness'> {
  const value: RuntimeReadiness = {
    runtime,
    executable: found
      ? { name: runtime, found, path: `/usr/bin/${runtime}`, via: 'path', version: `${runtime} 1.2.3`, problem: null }
      : { name: runtime, found, path: null, via: null, version: null, problem: NOT_FOUND },
    credentials: { configured: false, sources: [] },
    credential: { kind: 'none', label: 'none needed', expires_at: null, refreshable: false },
  };
  return { ok: true, value };
}

/** Every runtime answered, gemini not installed; copilot's probe has not answered yet. */
const READINESS = Object.fromEntries(EXECUTOR_RUNTIME_IDS.filter((r) => r !== 'copilot').map((r) => [r, readiness(r, r !== 'gemini')]));

const fieldOf = (control: HTMLElement): HTMLElement => {
  const field = control.closest<HTMLElement>('[data-path]');
  if (field === null) throw new Error('the control is not inside a field');
  return field;
};

function renderEditor() {
  const draft = new ProfileDraft();
  render(ProfileEditor, { props: { draft, readiness: READINESS } });
  const [first, second] = screen.getAllByLabelText('Runtime');
  if (first === undefined || second === undefined) throw new Error('expected two profiles');
  return { draft, first, second };
}

describe('profile editor: every runtime', () => {
  it('lists every runtime of the descriptors with its readiness, and the reason when it is not ready', () => {
    const { first } = renderEditor();
    const listed = within(screen.getByRole('region', { name: 'Runtimes on this machine' })).getAllByRole('listitem');
    expect(listed.map((item) => item.dataset.testid)).toEqual(EXECUTOR_RUNTIME_IDS.map((r) => `runtime-status-${r}`));
    expect(EXECUTOR_RUNTIME_IDS).toHaveLength(6);
    expect(screen.getByTestId('runtime-status-qwen')).toHaveTextContent('qwen ready version qwen 1.2.3');
    expect(screen.getByTestId('runtime-status-gemini')).toHaveTextContent(`gemini not ready ${NOT_FOUND}`);
    expect(screen.getByTestId('runtime-status-copilot')).toHaveTextContent('copilot checking…');

    const options = within(first).getAllByRole('option') as HTMLOptionElement[];
    expect(options.map((o) => o.value)).toEqual(EXECUTOR_RUNTIME_IDS);
    expect(options.find((o) => o.value === 'gemini')).toHaveTextContent('gemini (not ready)');
    expect(options.find((o) => o.value === 'codex')).toHaveTextContent(/^codex$/);
    expect(first).toHaveAccessibleDescription(/ready: version claude 1\.2\.3/);
  });

  it('gives gemini its approval mode and no local models, with the reason it is not ready beside it', async () => {
    const { draft, first } = renderEditor();
    await fireEvent.change(first, { target: { value: 'gemini' } });
    expect(first).toHaveAccessibleDescription(new RegExp(`not ready: ${NOT_FOUND.replace(/[().]/g, '\\$&')}`));
    // Only the codex profile keeps a local-provider field.
    expect(screen.getAllByLabelText('Local provider')).toHaveLength(1);
    const mode = screen.getByLabelText('approval mode');
    const suggested = [...(document.getElementById(mode.getAttribute('list') ?? '')?.querySelectorAll('option') ?? [])].map((o) => o.value);
    expect(suggested).toEqual(['default', 'auto_edit', 'plan']);
    expect(screen.queryByLabelText('permission mode')).toBeNull();

    await fireEvent.input(mode, { target: { value: 'yolo' } });
    expect(within(fieldOf(mode)).getByText(/"yolo" is refused/)).toHaveAttribute('data-rule', 'forbidden_value');
    await fireEvent.input(mode, { target: { value: 'plan' } });
    expect(draft.file).toMatchObject({ schema_version: 2, executors: [{ runtime: 'gemini', adapter_options: { approval_mode: 'plan' } }, { runtime: 'codex' }] });
    expect(draft.violations).toEqual([]);
  });

  it('offers Ollama and LM Studio to qwen, no options to opencode, and lists each runtime’s own local providers', async () => {
    const { draft, first, second } = renderEditor();
    await fireEvent.change(first, { target: { value: 'qwen' } });
    await fireEvent.change(second, { target: { value: 'opencode' } });
    const providers = screen.getAllByLabelText('Local provider');
    expect(providers).toHaveLength(2);
    for (const provider of providers) expect(within(provider).getAllByRole('option').map((o) => (o as HTMLOptionElement).value)).toEqual(['', 'ollama', 'lmstudio']);
    expect(screen.getByLabelText('approval mode')).toBeInTheDocument();
    // The only option field is qwen's: opencode has none.
    expect(document.querySelectorAll('[data-path*="adapter_options"]')).toHaveLength(1);

    const withLocal = EXECUTOR_RUNTIMES.filter((r) => r.localProviders.length > 0).map((r) => r.id);
    expect(withLocal).toEqual(['codex', 'opencode', 'copilot', 'qwen']);
    for (const runtime of EXECUTOR_RUNTIME_IDS) {
      await fireEvent.change(second, { target: { value: runtime } });
      expect(screen.getAllByLabelText('Local provider'), runtime).toHaveLength(withLocal.includes(runtime) ? 2 : 1);
    }

    const [qwenProvider] = providers;
    if (qwenProvider === undefined) throw new Error('no provider field');
    await fireEvent.change(qwenProvider, { target: { value: 'ollama' } });
    await fireEvent.input(screen.getAllByLabelText('Model')[0]!, { target: { value: 'qwen3:8b' } });
    expect(draft.violations).toEqual([]);
    expect(draft.profiles?.[0]).toEqual({ profile_id: 'claude', runtime: 'qwen', model: 'qwen3:8b', local_provider: 'ollama', adapter_options: {} });
  });
});
