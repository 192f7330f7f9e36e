import { isAppUrl } from './app-origin';

/**
 * Every web permission is denied, except writing plain text to the clipboard from the app's own
 * origin (copying a digest or a fork id), which reads nothing and reaches no device.
 */
const ALLOWED_FOR_APP = new Set(['clipboard-sanitized-write']);

export function isPermissionAllowed(permission: string, requestingUrl: string): boolean {
  return ALLOWED_FOR_APP.has(permission) && isAppUrl(requestingUrl);
}
