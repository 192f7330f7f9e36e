import type { ServerResponse } from 'node:http';
import type { ForkEvent } from '../../shared/fork/events';
import type { MissionControlService } from '../mission-control/service';

// A page that stops reading must not make the host buffer without end: past this it is cut off,
// and EventSource reconnects (the page then re-reads state through its calls).
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

export interface EventStreams {
  open(res: ServerResponse): void;
  /** Ends every open stream. */
  closeAll(): void;
}

/**
 * `GET /api/events`: server-sent events, one `data:` line of JSON per ForkEvent, and a comment
 * line every `heartbeatMs` so idle proxies and the page can tell the stream is alive. Each stream
 * unsubscribes when its connection closes.
 */
export function createEventStreams(service: MissionControlService, heartbeatMs: number): EventStreams {
  const open = new Set<ServerResponse>();
  return {
    open(res) {
      res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', Connection: 'keep-alive' });
      res.write(': connected\n\n');
      const write = (text: string) => {
        if (res.destroyed) return;
        if (res.writableLength > MAX_BUFFERED_BYTES) res.destroy();
        else res.write(text);
      };
      const unsubscribe = service.subscribe((event: ForkEvent) => write(`data: ${JSON.stringify(event)}\n\n`));
      const heartbeat = setInterval(() => write(': heartbeat\n\n'), heartbeatMs);
      open.add(res);
      const cleanup = () => {
        clearInterval(heartbeat);
        unsubscribe();
        open.delete(res);
      };
      // The response's close (not the request's, which may come as soon as the GET is read) is the connection ending.
      res.on('close', cleanup);
    },
    closeAll() {
      for (const res of [...open]) res.end();
    },
  };
}
