import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/* Debian's chromium, driven by playwright-core: never a downloaded browser. */

export const CHROMIUM = '/usr/bin/chromium';

/** CI installs chromium and sets AWB_REQUIRE_BROWSER=1, so a missing browser fails there instead of skipping. */
export const browserSkip: string | false =
  !existsSync(CHROMIUM) && process.env.AWB_REQUIRE_BROWSER !== '1' ? `${CHROMIUM} is missing (apt-get install chromium)` : false;

/** A headless browser with a profile of its own, removed by close(). */
export async function launchChromium(viewport = { width: 1280, height: 900 }): Promise<{ ctx: BrowserContext; close(): Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'awb-chromium-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    viewport,
  });
  return {
    ctx,
    async close() {
      await ctx.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
