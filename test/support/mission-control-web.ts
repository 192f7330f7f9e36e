import path from 'node:path';
import type { Browser } from 'playwright-core';
import { openOrchestratorContext } from '../../main/host/open-context';
import { createMissionControlService, type MissionControl } from '../../main/mission-control/service';
import { startWebHost, type WebHost } from '../../main/web/web-host';
import { buildRenderer } from './build-renderer';
import { launchChromium } from './chromium';
import type { ForkHarness } from './fork-harness';
import { REPO_ROOT } from './run-cli';

/** Mission Control as an e2e test drives it: the real service over `h`'s fork root, the built renderer on the real loopback web host, and a real Chromium. */
export interface MissionControlWeb {
  readonly service: MissionControl;
  readonly host: WebHost;
  readonly browser: Browser;
  /** The renderer built fresh for this test file (never out/renderer, which other runs share). */
  readonly staticDir: string;
}

/** Builds the renderer (into `base`) and launches Chromium side by side, then opens the service and its web host. */
export async function openMissionControlWeb(base: string, h: ForkHarness, env: Readonly<Record<string, string>> = { CITADEL_KEYSTORE: 'file' }): Promise<MissionControlWeb> {
  const [staticDir, browser] = await Promise.all([buildRenderer(path.join(base, 'renderer')), launchChromium()]);
  const ctx = await openOrchestratorContext({ env: h.env(env), supervisorScript: path.join(REPO_ROOT, 'out', 'cli', 'supervisor.mjs') });
  const service = createMissionControlService(ctx, { log: () => undefined });
  const host = await startWebHost({ service, port: 0, staticDir });
  return { service, host, browser, staticDir };
}

/** Closes what `openMissionControlWeb` opened; waits (bounded) for the background drives, whose supervisors end by themselves, before the caller removes their files. */
export async function closeMissionControlWeb(web: MissionControlWeb | undefined): Promise<void> {
  if (web === undefined) return;
  await web.browser.close();
  await web.host.close();
  await Promise.race([web.service.drained(), new Promise((resolve) => setTimeout(resolve, 30_000).unref())]);
}
