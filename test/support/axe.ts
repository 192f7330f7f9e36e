import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

// Evaluated through the DevTools protocol, which the page's CSP (script-src 'self') does not govern.
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly nodes: readonly { readonly target: readonly unknown[]; readonly any: readonly { readonly data?: unknown }[] }[];
}

/**
 * Runs axe-core on the page as it is now, in light and then dark colour scheme, and returns one line
 * per serious or critical violation (empty when there is none), so a test can show them all at once.
 */
export async function seriousA11yViolations(page: Page, view: string): Promise<string[]> {
  const found: string[] = [];
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    if ((await page.evaluate(() => typeof (window as { axe?: unknown }).axe)) === 'undefined') await page.evaluate(AXE_SOURCE);
    const violations = await page.evaluate(async () => {
      const axe = (window as unknown as { axe: { run: (context: Document, options: object) => Promise<{ violations: AxeViolation[] }> } }).axe;
      return (await axe.run(document, { resultTypes: ['violations'] })).violations;
    });
    for (const v of violations) {
      if (v.impact !== 'serious' && v.impact !== 'critical') continue;
      found.push(`${view} (${colorScheme}): ${v.id} [${v.impact}] ${v.help} at ${v.nodes.map((n) => `${JSON.stringify(n.target)}${contrastOf(n.any)}`).join(', ')}`);
    }
  }
  await page.emulateMedia({ colorScheme: null });
  return found;
}

/** For a contrast failure, the colours and ratio axe measured, so the fix is evident from the message. */
function contrastOf(checks: readonly { readonly data?: unknown }[]): string {
  const data = checks[0]?.data as { fgColor?: string; bgColor?: string; contrastRatio?: number } | undefined;
  return data?.contrastRatio === undefined ? '' : ` (${data.fgColor} on ${data.bgColor}: ${data.contrastRatio})`;
}
