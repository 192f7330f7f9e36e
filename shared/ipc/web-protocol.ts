/**
 * How the loopback web host carries the IPC contract over HTTP (127.0.0.1 only):
 * - `POST /api/call/<channel>` with the JSON request body and the per-run token in TOKEN_HEADER;
 *   the answer is the channel's typed reply envelope (`{ok:true,value}` or `{ok:false,error}`).
 * - `GET /api/events?token=…` is a server-sent-event stream of ForkEvents (EventSource cannot send
 *   headers, so this one endpoint takes the token as a query parameter).
 * - Everything else serves the built renderer; the page learns the token from its own URL
 *   (`/?token=…`, printed by `citadel mission-control`).
 * Every request is refused unless its Host is the bound 127.0.0.1:<port> (or localhost:<port>),
 * and a request carrying an Origin must come from that same origin (DNS-rebinding defence).
 */
export const API_CALL_PREFIX = '/api/call/';
export const API_EVENTS_PATH = '/api/events';
export const TOKEN_HEADER = 'x-citadel-token';
export const TOKEN_QUERY = 'token';
