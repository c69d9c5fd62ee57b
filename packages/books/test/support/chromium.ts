import { serviceSkip } from '@platform/testkit';
import { type Browser, chromium } from 'playwright-core';

/** Debian's chromium, installed by scripts/browsers.sh; playwright-core downloads no browser. */
const executablePath = '/usr/bin/chromium';

// Headless, sandbox-free (containers), and quiet: no background traffic to anything but loopback.
const args = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** For `test(name, { skip: chromiumSkip() }, …)`: a loud skip on a dev machine, a failure under CI. */
export function chromiumSkip(): false | string {
  return serviceSkip('chromium', 'chromium');
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath, args, headless: true, timeout: 30_000 });
}
