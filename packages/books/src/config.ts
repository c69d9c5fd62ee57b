export interface Config {
  port: number;
  publicBaseUrl: string | undefined;
}

export class ConfigError extends Error {
  readonly code = 'BOOKS_CONFIG_INVALID';
}

function parsePort(raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new ConfigError(`invalid PORT '${raw}': expected an integer from 0 to 65535`);
  }
  return port;
}

function parseBaseUrl(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`invalid PUBLIC_BASE_URL '${raw}': expected an absolute http(s) URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`invalid PUBLIC_BASE_URL '${raw}': expected an absolute http(s) URL`);
  }
  return url.href.replace(/\/$/, '');
}

/** Reads and validates the service configuration from the environment. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return { port: parsePort(env.PORT, 3000), publicBaseUrl: parseBaseUrl(env.PUBLIC_BASE_URL) };
}
