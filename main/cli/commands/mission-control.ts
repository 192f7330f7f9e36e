import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { CitadelError } from '../../../shared/errors';
import { createMissionControlService } from '../../mission-control/service';
import { startWebHost } from '../../web/web-host';
import { openOrchestratorContext } from '../../host/open-context';
import type { Io } from '../io/output';

/** The built renderer ships beside the CLI bundle: out/cli/citadel.mjs → out/renderer/. */
const RENDERER_DIR = fileURLToPath(new URL('../renderer/', import.meta.url));

/** `citadel mission-control [--port N]` (decisions D13). */
export function registerMissionControlCommand(program: Command, io: Io): void {
  program
    .command('mission-control')
    .description('serve Mission Control on 127.0.0.1 and print its URL with a per-run token; runs until interrupted')
    .option('--port <n>', 'port to listen on (default: a free one)', parsePort)
    .action((options: { port?: number }) => missionControl(io, options.port ?? 0));
}

async function missionControl(io: Io, port: number): Promise<void> {
  if (!existsSync(path.join(RENDERER_DIR, 'index.html'))) {
    throw new CitadelError('RENDERER_NOT_BUILT', `the Mission Control renderer is not built (no index.html in ${RENDERER_DIR}); run npm run build`);
  }
  const service = createMissionControlService(await openOrchestratorContext(), { log: (line) => io.stderr(`${line}\n`) });
  const host = await startWebHost({ service, port, staticDir: RENDERER_DIR });
  io.stdout(`Mission Control: ${host.url}\n`);
  io.stderr('Serving on 127.0.0.1 only. Press Ctrl-C to stop.\n');
  await nextSignal(['SIGINT', 'SIGTERM']);
  await host.close();
  const running = service.runningForks();
  io.stderr('Mission Control stopped.\n');
  if (running.length > 0) {
    // Their runtimes go on under their own supervisors; this process only waited on them.
    for (const forkId of running) io.stderr(`${forkId} is still running; citadel fork resume ${forkId} collects it.\n`);
    process.exit(0);
  }
}

function nextSignal(signals: readonly NodeJS.Signals[]): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const handlers = signals.map((signal) => {
      const handler = () => {
        signals.forEach((s, i) => process.off(s, handlers[i]!));
        resolve(signal);
      };
      process.on(signal, handler);
      return handler;
    });
  });
}

function parsePort(value: string): number {
  const port = /^\d{1,5}$/.test(value) ? Number(value) : NaN;
  if (!(port >= 0 && port <= 65535)) throw new CitadelError('USAGE_ERROR', `--port takes a port number from 0 to 65535, got "${value}"`);
  return port;
}
