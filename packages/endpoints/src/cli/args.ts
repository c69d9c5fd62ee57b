import { parseArgs } from 'node:util';
import { EndpointsError } from '../errors.js';
import { argumentError } from './commands.js';

export interface CliOptions {
  /** Empty: take the prefixes from APP_PREFIX / ENDPOINTS_PREFIX. */
  readonly prefixes: readonly string[];
  readonly host: string;
  readonly port: number;
  readonly reload: boolean;
  readonly debug: boolean;
  /** Path to serve the OpenAPI document at, if any. */
  readonly openapi: string | undefined;
  /** A tsconfig.json whose handler types the validation checks against (`--project`). */
  readonly project: string | undefined;
  /** `--response-validation`; undefined leaves it to `APP_RESPONSE_VALIDATION`. */
  readonly responseValidation: string | undefined;
  /** `--message-validation`; undefined leaves it to `APP_MESSAGE_VALIDATION`. */
  readonly messageValidation: boolean | undefined;
  /** Compiled JS only: no TypeScript loader is registered. */
  readonly production: boolean;
  readonly help: boolean;
}

export const USAGE = `Usage: endpoints [serve] [--prefix <dir|package>]... [--host <host>:<port>] [--reload] [--debug] [--openapi <path>]
                 [--project <tsconfig>] [--response-validation off|log|strict] [--message-validation] [--production]

  -P, --prefix <path>   controller prefix: a directory, module file or package specifier (repeatable,
                        alias --controller-prefix;
                        default: APP_PREFIX, or its alias ENDPOINTS_PREFIX)
  -H, --host <h:p>      address to listen on (default 127.0.0.1:8000); port 0 picks a free port
      --reload          restart when a file under a prefix changes
      --debug           stack traces in 500 bodies and in startup errors; the route table at startup
      --openapi <path>  serve the OpenAPI document at this path (e.g. /openapi.json)
      --project <file>  read the handlers' parameter and return types through the TypeScript compiler
                        with this tsconfig.json, for the served document and the validation below
                        (default: APP_PROJECT)
      --response-validation <mode>
                        off, log (a mismatch logged once per route) or strict (a 500 naming the bad
                        field, logged with the request id): each JSON success response checked
                        against its handler's return type; needs --project (default:
                        APP_RESPONSE_VALIDATION, else off)
      --message-validation
                        check each WebSocket frame and its body; a bad one gets the 400 reply frame
                        and the socket stays open; needs --project (default: APP_MESSAGE_VALIDATION)
      --production      load compiled JavaScript only (also NODE_ENV=production)
  -h, --help            this text`;

const DEFAULT_HOST = '127.0.0.1';
const DEFAULT_PORT = 8000;

/** `host:port`, `[v6]:port`, `:port`, `port` or `host`. */
export function parseHost(value: string): { host: string; port: number } {
  const invalid = () =>
    new EndpointsError('INVALID_ARGUMENT', `--host must look like 127.0.0.1:8000, got '${value}'`);
  let host = DEFAULT_HOST;
  let portText: string | undefined = value;
  if (!/^\d+$/.test(value)) {
    const match = /^(?:\[([^\]]+)\]|([^:[\]]*))(?::(\d+))?$/.exec(value);
    if (!match) throw invalid();
    host = match[1] ?? (match[2] || DEFAULT_HOST);
    portText = match[3];
  }
  const port = portText === undefined ? DEFAULT_PORT : Number(portText);
  if (port > 65_535) throw invalid();
  return { host, port };
}

export function parseCliArgs(argv: readonly string[], env: Record<string, string | undefined>): CliOptions {
  let values: ReturnType<typeof parse>['values'];
  try {
    values = parse(argv).values;
  } catch (error) {
    throw argumentError(error);
  }
  const { host, port } = parseHost(values.host ?? `${DEFAULT_HOST}:${DEFAULT_PORT}`);
  return {
    prefixes: [...(values.prefix ?? []), ...(values['controller-prefix'] ?? [])],
    host,
    port,
    reload: values.reload ?? false,
    debug: values.debug ?? false,
    openapi: values.openapi,
    project: values.project,
    responseValidation: values['response-validation'],
    messageValidation: values['message-validation'],
    production: (values.production ?? false) || env.NODE_ENV === 'production',
    help: values.help ?? false,
  };
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      prefix: { type: 'string', short: 'P', multiple: true },
      'controller-prefix': { type: 'string', multiple: true },
      host: { type: 'string', short: 'H' },
      reload: { type: 'boolean' },
      debug: { type: 'boolean' },
      openapi: { type: 'string' },
      project: { type: 'string' },
      'response-validation': { type: 'string' },
      'message-validation': { type: 'boolean' },
      production: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
