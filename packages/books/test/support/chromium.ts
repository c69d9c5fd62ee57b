import { requireBinary, serviceSkip } from '@platform/testkit';
import { type Browser, chromium } from 'playwright-core';

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

/** Debian's chromium (scripts/browsers.sh installs it); playwright-core downloads no browser. */
export function launchChromium(): Promise<Browser> {
  const executablePath = requireBinary('chromium', 'chromium');
  if (typeof executablePath !== 'string') throw new Error(executablePath.message);
  return chromium.launch({ executablePath, args, headless: true, timeout: 30_000 });
}
