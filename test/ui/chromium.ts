// Debian's chromium driven by playwright-core (installed by scripts/toolchains.sh test).
import type { Browser } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  // Chromium's own sandbox cannot start as root (CI runs as root); the page is ours, on loopback.
  const args = process.getuid?.() === 0 ? ['--no-sandbox'] : [];
  return chromium.launch({ executablePath: CHROMIUM, args });
}
