import { describe, expect, it } from 'vitest';
import { safeExternalUrl } from '../../../main/app/external-url';

describe('safeExternalUrl (the only links given to shell.openExternal)', () => {
  it('accepts https URLs with a host, normalized', () => {
    expect(safeExternalUrl('https://github.com/citadel/citadel/issues/1')).toBe('https://github.com/citadel/citadel/issues/1');
    expect(safeExternalUrl('HTTPS://Docs.Example.com/a b')).toBe('https://docs.example.com/a%20b');
  });

  it.each([
    'http://example.com/',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'app://citadel/index.html',
    'smb://host/share',
    'ms-msdt:/id PCWDiagnostic',
    'vscode://file/etc/passwd',
    'https://github.com@evil.example/',
    'https://user:pass@example.com/',
    'https://',
    'https:',
    '//example.com/protocol-relative',
    '/relative/path',
    '',
    `https://example.com/${'a'.repeat(2048)}`,
  ])('refuses %j', (url) => {
    expect(safeExternalUrl(url)).toBeNull();
  });

  it.each([null, undefined, 42, { href: 'https://example.com' }])('refuses the non-string %j', (value) => {
    expect(safeExternalUrl(value)).toBeNull();
  });
});
