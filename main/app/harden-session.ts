import type { Session } from 'electron';
import { CONTENT_SECURITY_POLICY } from '../web/security-headers';
import { isPermissionAllowed } from './permissions';

/** Permissions denied by default, and the CSP added to every response the session receives. */
export function hardenSession(session: Session): void {
  session.setPermissionRequestHandler((_contents, permission, callback, details) => callback(isPermissionAllowed(permission, details.requestingUrl)));
  session.setPermissionCheckHandler((_contents, permission, requestingOrigin) => isPermissionAllowed(permission, requestingOrigin));
  session.setDevicePermissionHandler(() => false);
  session.webRequest.onHeadersReceived((details, callback) =>
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] } }),
  );
}
