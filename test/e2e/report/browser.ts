/**
 * Headless chromium for the report tests (Debian's, driven by playwright-core): where it is, why a test skips
 * without it, and the flags that keep it hermetic.
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** The browser binary: CHROMIUM_BIN, or Debian's chromium. */
export const CHROMIUM = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';

/** Why the browser tests skip, or undefined when chromium is there. */
export const NO_BROWSER = existsSync(CHROMIUM)
  ? undefined
  : `${CHROMIUM} is absent (apt-get install chromium, or set CHROMIUM_BIN)`;

// Headless and hermetic: no GPU, no sandbox (containers), nothing fetched in the background.
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Starts headless chromium. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
}
