import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestInvalid } from '../../shared/ipc/define-channels';
import type { MissionControlService } from '../mission-control/service';
import { readBody } from './read-body';
import { refuse, sendJson } from './respond';

/** The largest request body accepted (an opened artifact may be up to 16 MiB of text, plus its JSON quoting). */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

/**
 * `POST /api/call/<channel>`: the JSON body goes to the service as untrusted input and the typed
 * reply comes back as it is. The token, Host and Origin were checked before this runs.
 */
export async function handleApiCall(service: MissionControlService, channel: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (!isJsonContentType(req.headers['content-type'])) {
    refuse(res, 415, 'a call carries its request as application/json');
    return;
  }
  const body = await readBody(req, MAX_BODY_BYTES);
  if (!body.ok) {
    if (body.reason === 'too_large') refuse(res, 413, `a request body is at most ${MAX_BODY_BYTES} bytes`, { Connection: 'close' });
    else if (body.reason === 'not_utf8') refuse(res, 400, 'the request body is not UTF-8 text');
    else res.destroy();
    return;
  }
  let payload: unknown;
  try {
    payload = JSON.parse(body.text);
  } catch {
    sendJson(res, 400, { ok: false, error: requestInvalid(channel, 'the request body is not JSON').toData() });
    return;
  }
  sendJson(res, 200, await service.handle(channel, payload));
}

function isJsonContentType(header: string | undefined): boolean {
  return header !== undefined && header.split(';', 1)[0]?.trim().toLowerCase() === 'application/json';
}
