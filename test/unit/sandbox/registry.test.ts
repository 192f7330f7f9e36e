import { describe, expect, it } from 'vitest';
import { BUILTIN_SANDBOX_BACKENDS, readySandbox, sandboxBackendFor, sandboxReadiness } from '../../../main/sandbox/registry';
import { isCitadelError } from '../../../shared/errors';
import { SandboxReadinessSchema } from '../../../shared/sandbox/sandbox-readiness';

describe('sandbox registry', () => {
  it('serves Linux with bubblewrap, macOS with Seatbelt and nothing else', () => {
    expect(sandboxBackendFor('linux', BUILTIN_SANDBOX_BACKENDS)?.id).toBe('bubblewrap');
    expect(sandboxBackendFor('darwin', BUILTIN_SANDBOX_BACKENDS)?.id).toBe('seatbelt');
    for (const platform of ['win32', 'freebsd', 'openbsd', 'aix', 'sunos'] as const) {
      expect(sandboxBackendFor(platform, BUILTIN_SANDBOX_BACKENDS)).toBeUndefined();
    }
  });

  it('fails closed with SANDBOX_UNAVAILABLE where no backend exists', async () => {
    const refusal = await readySandbox('win32', BUILTIN_SANDBOX_BACKENDS, {}).catch((error: unknown) => error);
    expect(isCitadelError(refusal) && refusal.toData()).toEqual({
      code: 'SANDBOX_UNAVAILABLE',
      message: 'Citadel has no containment backend for win32',
      details: { backend: null, problem: 'Citadel has no containment backend for win32', install: null },
    });
    const readiness = await sandboxReadiness('win32', BUILTIN_SANDBOX_BACKENDS, {});
    expect(SandboxReadinessSchema.parse(readiness)).toEqual({
      backend: null,
      ready: false,
      executable: null,
      version: null,
      problem: 'Citadel has no containment backend for win32',
      install: null,
    });
  });

  it('reports only the registry it is given (no built-in default)', async () => {
    await expect(readySandbox('linux', {}, {})).rejects.toMatchObject({ code: 'SANDBOX_UNAVAILABLE' });
  });
});
