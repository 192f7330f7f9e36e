import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codexAdapter } from '../../../main/runtimes/codex/adapter';
import { parseCodexEvents, type CodexEventsSummary } from '../../../main/runtimes/codex/parse-events';
import { ParsedRuntimeOutputSchema, UNKNOWN_TELEMETRY } from '../../../shared/runtime/telemetry';
import { recordedRun } from './recorded-run';

const A_TEXT_THREAD = '01a22907-603e-7363-9eb9-ea16456b3e67';

/** Parses, and checks the output against the shared schema the receipts use. */
function parse(...args: Parameters<typeof recordedRun>): CodexEventsSummary {
  const summary = parseCodexEvents(recordedRun(...args));
  ParsedRuntimeOutputSchema.parse(summary.output);
  return summary;
}

/** The recorded a_text event lines (without the trailing newline). */
function aTextLines(): string[] {
  return recordedRun('codex', 'a_text').stdout.trimEnd().split('\n');
}

const event = (value: Record<string, unknown>): string => JSON.stringify(value);

describe('Codex event parser on recorded runs', () => {
  it('reads a text turn: outcome, tokens, thread; cost stays unknown; the model is not in stdout', () => {
    const { output, threadId } = parse('codex', 'a_text');
    expect(threadId).toBe(A_TEXT_THREAD);
    expect(output).toEqual({
      succeeded: true,
      failure_code: null,
      telemetry: { ...UNKNOWN_TELEMETRY, input_tokens: 321, output_tokens: 54 },
      session_ref: A_TEXT_THREAD,
      // stderr: the PATH-alias warning; the model-metadata error item is non-fatal.
      warnings: ['stderr_output', 'nonfatal_runtime_errors'],
    });
  });

  it.each(['b1_shell', 'b2_patch'])('reads the tool turn %s with usage summed over its requests', (name) => {
    expect(parse('codex', name).output).toMatchObject({
      succeeded: true,
      telemetry: { input_tokens: 642, output_tokens: 108, cost_usd: null },
    });
  });

  it.each([
    ['c1_err500', 'RUNTIME_API_ERROR'],
    ['c2_err401', 'RUNTIME_AUTH_FAILED'],
  ] as const)('classifies the failed turn %s as %s, tokens unknown', (name, code) => {
    const { output, threadId } = parse('codex', name);
    expect(output).toMatchObject({ succeeded: false, failure_code: code, telemetry: UNKNOWN_TELEMETRY });
    expect(output.warnings).toEqual(['stderr_output', 'nonfatal_runtime_errors', 'tokens_missing']);
    expect(threadId).toMatch(/^01a22907-/);
  });

  it.each(['d1_noserver', 'f4_old_ollama_version', 'g3_lmstudio_noserver'])(
    'reports the setup failure %s (empty stdout, exit 1) as RUNTIME_PROVIDER_UNAVAILABLE',
    (name) => {
      expect(parse('codex', name)).toEqual({
        threadId: null,
        output: { succeeded: false, failure_code: 'RUNTIME_PROVIDER_UNAVAILABLE', telemetry: UNKNOWN_TELEMETRY, session_ref: null, warnings: ['stderr_output'] },
      });
    },
  );

  it.each(['h6_not_a_git_repo', 'h3_bad_sandbox_value'])('reports the other empty-stdout exit %s as RUNTIME_EXITED_NONZERO', (name) => {
    expect(parse('codex', name).output.failure_code).toBe('RUNTIME_EXITED_NONZERO');
  });
});

describe('Codex event parser on derived transcripts', () => {
  it('tolerates blank lines and CRLF', () => {
    const stdout = `\n${aTextLines().join('\r\n\n')}\r\n\n`;
    expect(parse('codex', 'a_text', { stdout }).output).toEqual(parse('codex', 'a_text').output);
  });

  it('reads interleaved items and skips event types it does not know', () => {
    const [started, , turnStarted, , completed] = aTextLines();
    const stdout = [
      started,
      turnStarted,
      event({ type: 'item.started', item: { id: 'item_1', type: 'command_execution', status: 'in_progress' } }),
      event({ type: 'item.started', item: { id: 'item_2', type: 'file_change', status: 'in_progress' } }),
      event({ type: 'item.updated', item: { id: 'item_1', type: 'todo_list' } }),
      event({ type: 'item.completed', item: { id: 'item_2', type: 'file_change', status: 'completed' } }),
      event({ type: 'future.event', anything: [1, 2] }),
      event({ type: 'item.completed', item: { id: 'item_1', type: 'command_execution', status: 'failed', exit_code: 2 } }),
      completed,
      '',
    ].join('\n');
    const { output } = parse('codex', 'a_text', { stdout, stderr: '' });
    expect(output).toMatchObject({ succeeded: true, telemetry: { input_tokens: 321, output_tokens: 54 }, warnings: [] });
  });

  it('accepts a final line cut off after turn.completed, with a warning', () => {
    const lines = aTextLines().filter((line) => !line.includes('"type":"error"'));
    const clean = parse('codex', 'a_text', { stdout: `${lines.join('\n')}\n`, stderr: '' }).output;
    expect(clean.warnings).toEqual([]);
    const cut = parse('codex', 'a_text', { stdout: `${lines.join('\n')}\n{"type":"item.comp`, stderr: '' }).output;
    expect(cut).toMatchObject({ succeeded: true, telemetry: { input_tokens: 321 }, warnings: ['nonfatal_runtime_errors'] });
  });

  it('rejects an unparsable line anywhere else', () => {
    const lines = aTextLines();
    const garbageInside = [...lines.slice(0, 3), 'Segmentation fault', ...lines.slice(3)].join('\n');
    const garbageAfterNewline = `${lines.join('\n')}\nnot json\n`;
    const cutBeforeCompletion = `${lines.slice(0, 3).join('\n')}\n{"type":"item.comp`;
    for (const stdout of [garbageInside, garbageAfterNewline, cutBeforeCompletion, '[]\n', '{"no_type":1}\n']) {
      const { output } = parse('codex', 'a_text', { stdout });
      expect(output).toMatchObject({ succeeded: false, failure_code: 'RUNTIME_OUTPUT_UNPARSABLE' });
    }
  });

  it('reports a cancelled run (SIGTERM, partial output) as exited nonzero, keeping the thread', () => {
    const stdout = `${aTextLines().slice(0, 3).join('\n')}\n`;
    const { output, threadId } = parse('codex', 'a_text', { stdout, exitCode: null, signal: 'SIGTERM' });
    expect(threadId).toBe(A_TEXT_THREAD);
    expect(output).toMatchObject({
      succeeded: false,
      failure_code: 'RUNTIME_EXITED_NONZERO',
      session_ref: A_TEXT_THREAD,
      telemetry: { input_tokens: null, output_tokens: null },
    });
    expect(output.warnings).toContain('tokens_missing');
    // Killed in the seconds Codex lingers after turn.completed: the runtime did not exit cleanly.
    expect(parse('codex', 'a_text', { exitCode: null, signal: 'SIGTERM' }).output.failure_code).toBe('RUNTIME_EXITED_NONZERO');
  });

  it('does not call a clean exit without turn.completed a success', () => {
    for (const stdout of ['', `${aTextLines().slice(0, 3).join('\n')}\n`]) {
      expect(parse('codex', 'a_text', { stdout }).output).toMatchObject({ succeeded: false, failure_code: 'RUNTIME_OUTPUT_UNPARSABLE' });
    }
  });

  it('keeps retries that recovered as a warning', () => {
    const lines = aTextLines();
    const stdout = [...lines.slice(0, 3), event({ type: 'error', message: 'Reconnecting... 1/5 (stream disconnected)' }), ...lines.slice(3), ''].join('\n');
    expect(parse('codex', 'a_text', { stdout, stderr: '' }).output).toMatchObject({ succeeded: true, warnings: ['nonfatal_runtime_errors'] });
  });

  it.each([
    ['unexpected status 403 Forbidden: denied', 'RUNTIME_AUTH_FAILED'],
    ['Unauthorized', 'RUNTIME_AUTH_FAILED'],
    ['stream disconnected before completion', 'RUNTIME_API_ERROR'],
    ['context window of 4010 tokens exceeded', 'RUNTIME_API_ERROR'],
  ] as const)('classifies turn.failed %j as %s', (message, code) => {
    const stdout = [...aTextLines().slice(0, 3), event({ type: 'turn.failed', error: { message } }), ''].join('\n');
    expect(parse('codex', 'a_text', { stdout, exitCode: 1 }).output.failure_code).toBe(code);
  });

  it('keeps missing or malformed usage unknown, never 0', () => {
    for (const usage of [undefined, {}, { input_tokens: -1, output_tokens: 3 }, { input_tokens: '5', output_tokens: 3 }]) {
      const stdout = [...aTextLines().slice(0, 4), event({ type: 'turn.completed', ...(usage === undefined ? {} : { usage }) }), ''].join('\n');
      const { output } = parse('codex', 'a_text', { stdout, stderr: '' });
      expect(output).toMatchObject({ succeeded: true, telemetry: { input_tokens: null, output_tokens: null, cost_usd: null } });
      expect(output.warnings).toContain('tokens_missing');
    }
  });

  it('knows no thread when the id is not a UUID or several threads started', () => {
    const [, ...rest] = aTextLines();
    for (const starts of [[event({ type: 'thread.started', thread_id: '../../../etc/x' })], [event({ type: 'thread.started' })], [aTextLines()[0], event({ type: 'thread.started', thread_id: '01a22907-603e-7363-9eb9-ea16456b3e68' })]]) {
      const { output, threadId } = parse('codex', 'a_text', { stdout: [...starts, ...rest, ''].join('\n') });
      expect(threadId).toBeNull();
      expect(output.session_ref).toBeNull();
      expect(output.warnings).toContain('observed_model_missing');
    }
  });

  it('never throws and always returns a schema-valid result, whatever the output', () => {
    const line = fc.oneof(fc.string(), fc.json(), fc.constantFrom(...aTextLines()));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 8 }), fc.option(fc.integer({ min: 0, max: 255 })), (lines, exitCode) => {
        const { output } = parseCodexEvents({ stdout: lines.join('\n'), stderr: '', exitCode, signal: null, worktree: '/w', env: {} });
        expect(ParsedRuntimeOutputSchema.safeParse(output).success).toBe(true);
        expect(output.telemetry.cost_usd).toBeNull();
        if (output.succeeded) expect(exitCode).toBe(0);
      }),
    );
  });

  it('is what the Codex adapter parses with; without a CODEX_HOME or HOME the rollout is not found', async () => {
    const run = recordedRun('codex', 'a_text');
    expect(await codexAdapter.parseOutput(run)).toEqual({
      ...parseCodexEvents(run).output,
      warnings: ['stderr_output', 'nonfatal_runtime_errors', 'rollout_not_found'],
    });
  });
});
