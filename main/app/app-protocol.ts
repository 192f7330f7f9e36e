import { net, protocol } from 'electron';
import { pathToFileURL } from 'node:url';
import { CONTENT_SECURITY_POLICY } from '../web/security-headers';
import { resolveAppFile } from './app-file-path';
import { APP_SCHEME } from './app-origin';

/**
 * app:// behaves like https for the renderer (standard, secure origin; fetch and CORS-mode module
 * scripts work) without bypassing CSP. Must run before the app is ready.
 */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, corsEnabled: true } }]);
}

/** Serves the bundled renderer from `rendererDir`, read-only, every answer carrying the CSP. */
export function serveRenderer(rendererDir: string): void {
  protocol.handle(APP_SCHEME, async (request) => {
    const file = request.method === 'GET' ? resolveAppFile(rendererDir, request.url) : null;
    const found = file === null ? null : await net.fetch(pathToFileURL(file).toString()).catch(() => null);
    if (found === null || !found.ok) return new Response('not found', { status: 404, headers: securityHeaders({ 'content-type': 'text/plain' }) });
    return new Response(found.body, { status: 200, headers: securityHeaders(Object.fromEntries(found.headers)) });
  });
}

function securityHeaders(base: Record<string, string>): Headers {
  const headers = new Headers(base);
  headers.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  headers.set('X-Content-Type-Options', 'nosniff');
  return headers;
}
