import fc from 'fast-check';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveAppFile } from '../../../main/app/app-file-path';

const ROOT = path.resolve('/opt/citadel/resources/app.asar/out/renderer');

describe('resolveAppFile (the app:// path-escape check)', () => {
  it('maps the origin root to index.html and paths to files under the renderer folder', () => {
    expect(resolveAppFile(ROOT, 'app://citadel/')).toBe(path.join(ROOT, 'index.html'));
    expect(resolveAppFile(ROOT, 'app://citadel')).toBe(path.join(ROOT, 'index.html'));
    expect(resolveAppFile(ROOT, 'app://citadel/index.html')).toBe(path.join(ROOT, 'index.html'));
    expect(resolveAppFile(ROOT, 'app://citadel/assets/index-Dvu9Bicp.js?v=1#x')).toBe(path.join(ROOT, 'assets', 'index-Dvu9Bicp.js'));
    expect(resolveAppFile(ROOT, 'app://citadel/assets/a%20b.css')).toBe(path.join(ROOT, 'assets', 'a b.css'));
  });

  it('keeps plain and encoded dot segments inside the folder (the URL parser collapses them at the root)', () => {
    expect(resolveAppFile(ROOT, 'app://citadel/../../../etc/passwd')).toBe(path.join(ROOT, 'etc', 'passwd'));
    expect(resolveAppFile(ROOT, 'app://citadel/%2e%2e/%2E%2e/etc/passwd')).toBe(path.join(ROOT, 'etc', 'passwd'));
  });

  it.each([
    ['an encoded slash hiding ..', 'app://citadel/assets%2F..%2F..%2F..%2Fetc%2Fpasswd'],
    ['an encoded escape to the parent only', 'app://citadel/x%2F..%2F..'],
    ['an encoded escape to a sibling folder', 'app://citadel/..%2F..%2Frenderer-evil%2Findex.html'],
    ['an encoded slash resolving to the folder itself', 'app://citadel/x%2F..'],
  ])('refuses %s', (_name, url) => {
    expect(resolveAppFile(ROOT, url)).toBeNull();
  });

  it.each([
    ['another host', 'app://evil/index.html'],
    ['a port', 'app://citadel:8080/index.html'],
    ['credentials', 'app://user@citadel/index.html'],
    ['another scheme', 'file:///opt/citadel/resources/app.asar/out/renderer/index.html'],
    ['https', 'https://citadel/index.html'],
    ['a malformed escape', 'app://citadel/%E0%A4%A'],
    ['a NUL byte', 'app://citadel/index.html%00.png'],
    ['a folder', 'app://citadel/assets/'],
    ['a folder through an encoded slash', 'app://citadel/assets%2F'],
    ['no URL at all', '../index.html'],
  ])('refuses %s', (_name, url) => {
    expect(resolveAppFile(ROOT, url)).toBeNull();
  });

  it('never answers a path outside the renderer folder, whatever the request path', () => {
    const segment = fc.oneof(fc.constantFrom('..', '.', '%2e%2e', '%2E%2e', '%2F', '%5C', '%00', 'assets', 'index.html', ''), fc.string({ maxLength: 6 }));
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 8 }), (segments) => {
        const file = resolveAppFile(ROOT, `app://citadel/${segments.join('/')}`);
        if (file === null) return;
        const relative = path.relative(ROOT, file);
        expect(relative === '' || relative.startsWith('..') || path.isAbsolute(relative)).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });
});
