import type { ServerResponse } from 'node:http';

/**
 * The Electron app's CSP. Scripts come only from the served bundle. Styles also allow inline
 * because Svelte writes `style` attributes at run time (style: directives, transitions), which a
 * CSP without 'unsafe-inline' in style-src blocks; inline styles cannot run code.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'none'",
].join('; ');

/** Set on every response, refusals included. */
export function setSecurityHeaders(res: ServerResponse): void {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  // Another site may not even embed the bundle's files (a <script src> across origins).
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
}
