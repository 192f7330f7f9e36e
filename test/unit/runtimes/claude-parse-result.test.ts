import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { claudeAdapter } from '../../../main/runtimes/claude/adapter';
import { parseClaudeResult } from '../../../main/runtimes/claude/parse-result';
import { ParsedRuntimeOutputSchema, UNKNOWN_TELEMETRY, type ParsedRuntimeOutput } from '../../../shared/runtime/telemetry';
import { recordedRun } from './recorded-run';

/** Parses, and checks every result against the shared schema the receipts use. */
function parse(...args: Parameters<typeof recordedRun>): ParsedRuntimeOutput {
  return ParsedRuntimeOutputSchema.parse(parseClaudeResult(recordedRun(...args)));
}

/** The recorded success result (a_text) with some fields replaced. */
function editedSuccess(edit: (result: Record<string, unknown>) => void, overrides: Parameters<typeof recordedRun>[2] = {}): ParsedRuntimeOutput {
  const result = JSON.parse(recordedRun('claude', 'a_text').stdout) as Record<string, unknown>;
  edit(result);
  return parse('claude', 'a_text', { stdout: `${JSON.stringify(result)}\n`, ...overrides });
}

/** Token counts and costs as recorded, and the malformed values the parser must keep unknown. */
const tokenCount = fc.oneof(fc.nat(), fc.constantFrom(-1, 1.5, '123', null));
const costUsd = fc.oneof(fc.double({ min: 0, max: 10, noNaN: true }), fc.constantFrom(-0.5, '0.001', null));

/**
 * `{"type":"result",…}` objects with the fields and values seen in recordings/claude (successes,
 * tool runs with permission denials, 401/403/500 and connection errors), any of them left out.
 */
const resultObject = fc.record(
  {
    type: fc.constant('result'),
    subtype: fc.constantFrom('success', 'error_during_execution', 'error_max_turns'),
    is_error: fc.boolean(),
    api_error_status: fc.constantFrom(null, 401, 403, 500),
    api_error_type: fc.constantFrom('authentication_error', 'api_error'),
    api_error: fc.constant('connection_failed'),
    result: fc.constantFrom(
      'FAKE-REPLY: hello from the fake Anthropic server.',
      'Edited README.md.',
      'Not logged in · Please run /login',
      'Invalid API key · Fix external API key',
      'API Error: Connection refused — a firewall or proxy may be blocking it (ECONNREFUSED)',
    ),
    session_id: fc.oneof(fc.uuid(), fc.string()),
    num_turns: fc.integer({ min: 1, max: 12 }),
    total_cost_usd: costUsd,
    usage: fc.record(
      { input_tokens: tokenCount, output_tokens: tokenCount, cache_creation_input_tokens: fc.nat(), cache_read_input_tokens: fc.nat() },
      { requiredKeys: [] },
    ),
    modelUsage: fc.dictionary(
      fc.constantFrom('claude-sonnet-4-5', 'claude-opus-4-5', 'claude-sonnet-5-5', 'claude sonnet'),
      fc.record({ inputTokens: fc.nat(), outputTokens: fc.nat(), costUSD: fc.double({ min: 0, max: 10, noNaN: true }) }),
      { maxKeys: 2 },
    ),
    permission_denials: fc.array(
      fc.record({ tool_name: fc.constantFrom('Bash', 'Write'), tool_use_id: fc.string(), tool_input: fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }) }),
      { maxLength: 2 },
    ),
    terminal_reason: fc.constantFrom('completed', 'api_error'),
    stop_reason: fc.constantFrom('end_turn', 'stop_sequence'),
  },
  { requiredKeys: ['type', 'is_error'] },
);
const resultLine = resultObject.map((result) => `${JSON.stringify(result)}\n`);
// Exit 0 half the time, so that runs which may succeed are common.
const exitCodes = fc.oneof(fc.constant(0), fc.option(fc.integer({ min: 0, max: 255 })));
const signals = fc.constantFrom(null, null, null, 'SIGTERM', 'SIGKILL');

describe('Claude result parser on recorded runs', () => {
  it('reads a plain success: model from the modelUsage key, tokens, cost, session', () => {
    expect(parse('claude', 'a_text')).toEqual({
      succeeded: true,
      failure_code: null,
      telemetry: {
        observed_model: 'claude-sonnet-4-5',
        observed_model_source: 'claude_result_model_usage',
        input_tokens: 123,
        output_tokens: 45,
        cost_usd: 0.001044,
      },
      session_ref: '5a59e390-8ac7-45d4-836c-be1fd84b1fe5',
      warnings: [],
    });
  });

  it('reads tool runs (write, edit) as successes with their summed usage', () => {
    expect(parse('claude', 'b_tool_write')).toMatchObject({ succeeded: true, warnings: [] });
    expect(parse('claude', 'b2_tool_edit')).toMatchObject({
      succeeded: true,
      telemetry: { input_tokens: 492, output_tokens: 180, cost_usd: 0.004176 },
    });
  });

  it('warns about permission denials without failing the run', () => {
    expect(parse('claude', 'b3_bash_denied')).toMatchObject({ succeeded: true, failure_code: null, warnings: ['permission_denials'] });
  });

  it('reports the alias-resolved model, not the requested alias', () => {
    expect(parse('claude', 'j2_model_alias_sonnet').telemetry.observed_model).toBe('claude-sonnet-5-5');
  });

  it('flags stderr output (an ignored bad --effort) but keeps the success', () => {
    expect(parse('claude', 'h3_bad_effort')).toMatchObject({ succeeded: true, warnings: ['stderr_output'] });
  });

  it.each([
    ['c1_err401', 'RUNTIME_AUTH_FAILED'],
    ['d2_unauth', 'RUNTIME_AUTH_FAILED'],
    ['c2_err500', 'RUNTIME_API_ERROR'],
    ['d1_noserver', 'RUNTIME_PROVIDER_UNAVAILABLE'],
  ] as const)('classifies the error result %s (subtype "success", is_error true) as %s with unknown telemetry', (name, code) => {
    const parsed = parse('claude', name);
    expect(parsed.succeeded).toBe(false);
    expect(parsed.failure_code).toBe(code);
    // Error results carry zero usage, zero cost and an empty modelUsage: placeholders, so unknown.
    expect(parsed.telemetry).toEqual(UNKNOWN_TELEMETRY);
    expect(parsed.warnings).toEqual(['observed_model_missing', 'tokens_missing', 'cost_missing']);
    expect(parsed.session_ref).toMatch(/^[0-9a-f-]{36}$/);
  });

  it.each(['h1_bypassPermissions', 'h4_bad_permission_mode'])('reports the refusal %s (stderr only, exit 1) as RUNTIME_EXITED_NONZERO', (name) => {
    expect(parse('claude', name)).toEqual({
      succeeded: false,
      failure_code: 'RUNTIME_EXITED_NONZERO',
      telemetry: UNKNOWN_TELEMETRY,
      session_ref: null,
      warnings: ['stderr_output'],
    });
  });

  it('does not read stream-json output (not the declared format)', () => {
    expect(parse('claude', 'e1_streamjson_text')).toMatchObject({ succeeded: false, failure_code: 'RUNTIME_OUTPUT_UNPARSABLE' });
  });
});

describe('Claude result parser on derived transcripts', () => {
  it('trusts is_error and the exit code, never subtype', () => {
    expect(editedSuccess((r) => (r.subtype = 'error_during_execution')).succeeded).toBe(true);
    expect(editedSuccess((r) => (r.is_error = true))).toMatchObject({ succeeded: false, failure_code: 'RUNTIME_API_ERROR' });
    expect(editedSuccess(() => undefined, { exitCode: 1 })).toMatchObject({
      succeeded: false,
      failure_code: 'RUNTIME_EXITED_NONZERO',
      telemetry: { observed_model: 'claude-sonnet-4-5', input_tokens: 123 },
    });
  });

  it('classifies 403 as an authentication failure', () => {
    const parsed = editedSuccess((r) => Object.assign(r, { is_error: true, api_error_status: 403, result: 'Forbidden' }), { exitCode: 1 });
    expect(parsed.failure_code).toBe('RUNTIME_AUTH_FAILED');
  });

  it('refuses to choose among several modelUsage keys', () => {
    const parsed = editedSuccess((r) => (r.modelUsage = { 'claude-haiku-4-5': {}, 'claude-sonnet-4-5': {} }));
    expect(parsed.telemetry).toMatchObject({ observed_model: null, observed_model_source: null });
    expect(parsed.warnings).toEqual(['observed_model_ambiguous']);
  });

  it.each(['claude sonnet', '../../etc/passwd', '-flag', 'x'.repeat(129), ''])('drops the model key %j that is not public-safe', (key) => {
    const parsed = editedSuccess((r) => (r.modelUsage = { [key]: {} }));
    expect(parsed.telemetry.observed_model).toBeNull();
    expect(parsed.warnings).toEqual(['observed_model_not_public_safe']);
  });

  it('keeps missing or malformed tokens and cost unknown, never 0', () => {
    const noUsage = editedSuccess((r) => {
      delete r.usage;
      delete r.total_cost_usd;
    });
    expect(noUsage.telemetry).toMatchObject({ input_tokens: null, output_tokens: null, cost_usd: null });
    expect(noUsage.warnings).toEqual(['tokens_missing', 'cost_missing']);
    for (const bad of [-1, 1.5, '123', null]) {
      const parsed = editedSuccess((r) => {
        r.usage = { input_tokens: bad, output_tokens: 7 };
        r.total_cost_usd = bad === 1.5 ? -0.5 : bad;
      });
      expect(parsed.telemetry).toMatchObject({ input_tokens: null, output_tokens: 7, cost_usd: null });
      expect(parsed.succeeded).toBe(true);
    }
  });

  it('keeps a session_id that is not a UUID out of private state', () => {
    expect(editedSuccess((r) => (r.session_id = '../../x')).session_ref).toBeNull();
  });

  it('reads output interleaved with stderr chatter from stdout only', () => {
    const parsed = parse('claude', 'a_text', { stderr: 'Warning: one\n{"type":"result","is_error":true}\nWarning: two\n' });
    expect(parsed).toMatchObject({ succeeded: true, warnings: ['stderr_output'] });
  });

  it('does not guess past text around the result object', () => {
    const { stdout } = recordedRun('claude', 'a_text');
    expect(parse('claude', 'a_text', { stdout: `Warning: something\n${stdout}` }).failure_code).toBe('RUNTIME_OUTPUT_UNPARSABLE');
    expect(parse('claude', 'a_text', { stdout: `${stdout}${stdout}` }).failure_code).toBe('RUNTIME_OUTPUT_UNPARSABLE');
  });

  it('reports truncated, garbage, wrong-shape and empty stdout as unparsable', () => {
    const { stdout } = recordedRun('claude', 'a_text');
    for (const text of [stdout.slice(0, stdout.length / 2), 'Segmentation fault', '[1,2]', '{"type":"assistant","is_error":false}', '{"type":"result"}', '  \n']) {
      const parsed = parse('claude', 'a_text', { stdout: text });
      expect(parsed).toEqual({
        succeeded: false,
        failure_code: 'RUNTIME_OUTPUT_UNPARSABLE',
        telemetry: UNKNOWN_TELEMETRY,
        session_ref: null,
        warnings: [],
      });
    }
  });

  it('reports a cancelled run (SIGTERM) as not finished, whether it left nothing, a partial object or a whole one', () => {
    const { stdout } = recordedRun('claude', 'a_text');
    const killed = { exitCode: null, signal: 'SIGTERM' };
    expect(parse('claude', 'a_text', { ...killed, stdout: '' }).failure_code).toBe('RUNTIME_EXITED_NONZERO');
    expect(parse('claude', 'a_text', { ...killed, stdout: stdout.slice(0, 300) }).failure_code).toBe('RUNTIME_EXITED_NONZERO');
    expect(parse('claude', 'a_text', { stdout: stdout.slice(0, 300) }).failure_code).toBe('RUNTIME_OUTPUT_UNPARSABLE');
    expect(parse('claude', 'a_text', { ...killed }).failure_code).toBe('RUNTIME_EXITED_NONZERO');
  });

  it('never throws and always returns a schema-valid result, whatever the output', () => {
    let successes = 0;
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), resultLine), exitCodes, signals, (stdout, exitCode, signal) => {
        const parsed = parseClaudeResult({ stdout, stderr: '', exitCode, signal, worktree: '/w', env: {} });
        expect(ParsedRuntimeOutputSchema.safeParse(parsed).success).toBe(true);
        if (parsed.succeeded) {
          successes += 1;
          expect(exitCode).toBe(0);
          expect(signal).toBeNull();
        }
      }),
    );
    // Without generated result objects no run succeeds, and the checks above never run.
    expect(successes).toBeGreaterThan(0);
  });

  it('decides a result object by is_error, the exit code and the signal alone, whatever its other fields', () => {
    fc.assert(
      fc.property(resultObject, fc.constantFrom('', '\n'), exitCodes, signals, (result, end, exitCode, signal) => {
        const parsed = parseClaudeResult({ stdout: `${JSON.stringify(result)}${end}`, stderr: '', exitCode, signal, worktree: '/w', env: {} });
        expect(ParsedRuntimeOutputSchema.safeParse(parsed).success).toBe(true);
        expect(parsed.succeeded).toBe(!result.is_error && exitCode === 0 && signal === null);
        expect(parsed.failure_code === null).toBe(parsed.succeeded);
      }),
    );
  });

  it('is what the Claude adapter parses with', async () => {
    expect(await claudeAdapter.parseOutput(recordedRun('claude', 'c2_err500'))).toEqual(parseClaudeResult(recordedRun('claude', 'c2_err500')));
  });
});
