import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { claudeAdapter } from '../../../main/runtimes/claude/adapter';
import { codexAdapter } from '../../../main/runtimes/codex/adapter';
import { childEnvironment } from '../../../main/runtimes/env-allowlist';

const OPERATOR_ENV = {
  PATH: '/usr/local/bin:/usr/bin',
  HOME: '/home/op',
  USER: 'op',
  LOGNAME: 'op',
  LANG: 'C.UTF-8',
  LC_ALL: 'C.UTF-8',
  LC_CTYPE: 'C.UTF-8',
  TZ: 'Etc/UTC',
  TMPDIR: '/tmp',
  TERM: 'xterm',
  ANTHROPIC_API_KEY: 'sk-ant-secret',
  ANTHROPIC_BASE_URL: 'http://127.0.0.1:18080',
  ANTHROPIC_AUTH_TOKEN: 'sk-ant-bearer',
  ANTHROPIC_FOO: 'not-allowlisted',
  CLAUDE_CONFIG_DIR: '/home/op/.claude',
  CLAUDE_CODE_MAX_RETRIES: '0',
  CLAUDE_CODE_USE_BEDROCK: '1',
  CLAUDE_CODEX: 'no',
  CODEX_HOME: '/home/op/.codex',
  OPENAI_API_KEY: 'sk-secret',
  OPENAI_BASE_URL: 'http://127.0.0.1:1',
  CODEX_OSS_BASE_URL: 'http://127.0.0.1:18435/v1',
  CODEX_OSS_PORT: '18434',
  AWS_SECRET_ACCESS_KEY: 'aws',
  GITHUB_TOKEN: 'ghp',
  NODE_OPTIONS: '--require /tmp/evil.js',
  SSH_AUTH_SOCK: '/tmp/ssh',
  CITADEL_HOME: '/home/op/citadel',
  XLC_ALL: 'x',
  PATHEXT: '.EXE',
  UNSET: undefined,
};

const COMMON = ['HOME', 'LANG', 'LC_ALL', 'LC_CTYPE', 'LOGNAME', 'PATH', 'TERM', 'TMPDIR', 'TZ', 'USER'];

describe('child environment allowlist (decisions D6)', () => {
  it('gives Claude the common names plus its own, values untouched, and nothing else', () => {
    const { env, presentNames } = childEnvironment(OPERATOR_ENV, claudeAdapter, { platform: 'linux' });
    const expected = [...COMMON, 'ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'ANTHROPIC_BASE_URL', 'CLAUDE_CODE_MAX_RETRIES', 'CLAUDE_CODE_USE_BEDROCK', 'CLAUDE_CONFIG_DIR'].sort();
    expect(presentNames).toEqual(expected);
    expect(Object.keys(env).sort()).toEqual(expected);
    for (const name of expected) expect(env[name]).toBe(OPERATOR_ENV[name as keyof typeof OPERATOR_ENV]);
  });

  it('gives Codex the common names plus its own, and no Anthropic or Claude names', () => {
    const { presentNames } = childEnvironment(OPERATOR_ENV, codexAdapter, { platform: 'linux' });
    expect(presentNames).toEqual([...COMMON, 'CODEX_HOME', 'CODEX_OSS_BASE_URL', 'CODEX_OSS_PORT', 'OPENAI_API_KEY', 'OPENAI_BASE_URL'].sort());
  });

  it('lists present names only, sorted', () => {
    const { env, presentNames } = childEnvironment({ TZ: 'UTC', ANTHROPIC_API_KEY: 'k', PATH: '/bin', UNSET: undefined }, claudeAdapter);
    expect(presentNames).toEqual(['ANTHROPIC_API_KEY', 'PATH', 'TZ']);
    expect(env).toEqual({ TZ: 'UTC', ANTHROPIC_API_KEY: 'k', PATH: '/bin' });
  });

  it('matches names exactly on POSIX and ignoring case on Windows', () => {
    const parent = { Path: 'C:\\bin', home: '/h', lc_all: 'x', claude_code_x: '1' };
    expect(childEnvironment(parent, claudeAdapter, { platform: 'linux' }).presentNames).toEqual([]);
    expect(childEnvironment(parent, claudeAdapter, { platform: 'win32' }).presentNames).toEqual(['Path', 'claude_code_x', 'home', 'lc_all']);
  });

  it('passes each adapter its credential variables, so readiness can name them', () => {
    for (const adapter of [claudeAdapter, codexAdapter]) {
      const parent = Object.fromEntries(adapter.credentialEnvNames.map((name) => [name, 'value']));
      expect(childEnvironment(parent, adapter).presentNames).toEqual([...adapter.credentialEnvNames].sort());
    }
  });

  it('never adds a name and never passes one outside the allowlist', () => {
    const allowed = (name: string): boolean =>
      [...COMMON, 'ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'ANTHROPIC_BASE_URL', 'CLAUDE_CONFIG_DIR'].includes(name) || /^(LC_|CLAUDE_CODE_)/.test(name);
    const names = fc.oneof(fc.string(), fc.constantFrom('PATH', 'LC_X', 'CLAUDE_CODE_Y', 'OPENAI_API_KEY', 'lc_all'));
    fc.assert(
      fc.property(fc.dictionary(names, fc.string()), (parent) => {
        const { env, presentNames } = childEnvironment(parent, claudeAdapter, { platform: 'linux' });
        for (const name of presentNames) {
          expect(allowed(name)).toBe(true);
          expect(env[name]).toBe(parent[name]);
        }
        expect(presentNames).toEqual(Object.keys(parent).filter(allowed).sort());
      }),
    );
  });
});
