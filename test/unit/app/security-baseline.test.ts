import { describe, expect, it } from 'vitest';
import { isAppUrl, parseAppUrl } from '../../../main/app/app-origin';
import { isPermissionAllowed } from '../../../main/app/permissions';
import { secureWebPreferences } from '../../../main/app/web-preferences';
import { CONTENT_SECURITY_POLICY } from '../../../main/web/security-headers';

function directives(policy: string): Map<string, string[]> {
  return new Map(
    policy
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .filter((words) => words[0] !== '')
      .map(([name = '', ...sources]) => [name, sources]),
  );
}

describe('the Content-Security-Policy every app:// response carries', () => {
  const policy = directives(CONTENT_SECURITY_POLICY);

  it('allows only the app itself by default and for scripts', () => {
    expect(policy.get('default-src')).toEqual(["'self'"]);
    expect(policy.get('script-src')).toEqual(["'self'"]);
  });

  it('shuts plugins, base rewriting, framing and form posts', () => {
    expect(policy.get('object-src')).toEqual(["'none'"]);
    expect(policy.get('base-uri')).toEqual(["'none'"]);
    expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
    expect(policy.get('form-action')).toEqual(["'none'"]);
  });

  it('never allows eval, remote hosts, wildcards or blob: anywhere', () => {
    for (const [name, sources] of policy) {
      for (const source of sources) {
        expect(source, `${name} ${source}`).not.toMatch(/unsafe-eval|wasm-unsafe-eval|\*|^https?:|^blob:|^ws/);
      }
    }
    // Fetches go nowhere but the app's own origin (the renderer talks to main over IPC only).
    expect(policy.get('connect-src') ?? policy.get('default-src')).toEqual(["'self'"]);
  });
});

describe('the renderer web preferences', () => {
  it('are the ARCHITECTURE.md security baseline', () => {
    expect(secureWebPreferences('/app/out/preload/index.cjs')).toMatchObject({
      preload: '/app/out/preload/index.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    });
  });
});

describe('the app origin', () => {
  it('is app://citadel exactly', () => {
    expect(isAppUrl('app://citadel/index.html')).toBe(true);
    expect(isAppUrl('app://citadel')).toBe(true);
    expect(parseAppUrl('app://citadel/assets/x.js')?.pathname).toBe('/assets/x.js');
    for (const url of ['app://citadel.evil/', 'app://citadel:1/', 'app://a@citadel/', 'apps://citadel/', 'https://citadel/', 'file:///citadel', 'citadel', '']) {
      expect(isAppUrl(url), url).toBe(false);
    }
  });
});

describe('web permissions', () => {
  it('are denied by default, even to the app', () => {
    for (const permission of ['media', 'geolocation', 'notifications', 'openExternal', 'clipboard-read', 'fullscreen', 'hid', 'serial', 'usb', 'unknown']) {
      expect(isPermissionAllowed(permission, 'app://citadel/index.html'), permission).toBe(false);
    }
  });

  it('let only the app write plain text to the clipboard', () => {
    expect(isPermissionAllowed('clipboard-sanitized-write', 'app://citadel/index.html')).toBe(true);
    expect(isPermissionAllowed('clipboard-sanitized-write', 'app://citadel')).toBe(true);
    expect(isPermissionAllowed('clipboard-sanitized-write', 'https://evil.example/')).toBe(false);
    expect(isPermissionAllowed('clipboard-sanitized-write', '')).toBe(false);
  });
});
