import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createApp, surveyRoutes } from '../app.js';
import { emitClient } from '../client/emit.js';
import { formatRouteTable } from '../route-listing/table.js';
import { argumentError } from './commands.js';

export const INSPECT_USAGE = `Usage: endpoints openapi [--prefix <dir|package>]... [--project <tsconfig>] [--out <file>] [--title <t>] [--api-version <v>] [--server <url>]...
       endpoints asyncapi [--prefix <dir|package>]... [--project <tsconfig>] [--out <file>]
       endpoints client [--prefix <dir|package>]... [--project <tsconfig>] [--out <file>]
       endpoints routes [--prefix <dir|package>]... [--json]

  openapi               print (or write with --out) the OpenAPI 3.1 document of the controllers
  asyncapi              print (or write with --out) the AsyncAPI 3.0 document of the WebSocket
                        controllers (classes with CONNECT or DISCONNECT)
  client                write (to --out, else standard output) one TypeScript module: the document's
                        types, an HTTP client on openapi-fetch and a typed WebSocket client
  routes                print every route (method, path, class, file, parameters) and every file or
                        export under the prefixes that was not mounted, with the reason
  -P, --prefix <path>   controller prefix, repeatable (default: APP_PREFIX, or ENDPOINTS_PREFIX)
      --project <file>  openapi, asyncapi, client: read parameter and return types from the handlers through the
                        TypeScript compiler with this tsconfig.json (warnings on standard error)
      --out <file>      openapi, client: write to this file instead of standard output
      --title <t>       openapi, client: info.title (default endpoints)
      --api-version <v> openapi, client: info.version (default 0.0.0)
      --server <url>    openapi: a servers entry, repeatable (default /)
      --json            routes: machine-readable output`;

export type InspectCommand = 'openapi' | 'asyncapi' | 'client' | 'routes';

function parse(command: InspectCommand, argv: readonly string[]) {
  try {
    return parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        prefix: { type: 'string', short: 'P', multiple: true },
        'controller-prefix': { type: 'string', multiple: true },
        ...(command !== 'routes'
          ? {
              out: { type: 'string' },
              project: { type: 'string' },
              title: { type: 'string' },
              'api-version': { type: 'string' },
              server: { type: 'string', multiple: true },
            }
          : { json: { type: 'boolean' } }),
        help: { type: 'boolean', short: 'h' },
      },
    }).values as Record<string, string | string[] | boolean | undefined>;
  } catch (error) {
    throw argumentError(error);
  }
}

/**
 * `endpoints openapi`, `endpoints asyncapi`, `endpoints client` and `endpoints routes`: load the controllers without serving them. `routes`
 * surveys, so an import error or a duplicate route is listed instead of stopping the table.
 */
export async function runInspect(command: InspectCommand, argv: readonly string[]): Promise<void> {
  const values = parse(command, argv);
  if (values.help) {
    process.stdout.write(`${INSPECT_USAGE}\n`);
    return;
  }
  const prefixes = [
    ...((values.prefix as string[]) ?? []),
    ...((values['controller-prefix'] as string[]) ?? []),
  ];
  const appOptions = prefixes.length > 0 ? { controllerPrefix: prefixes } : {};
  if (command === 'routes') {
    const table = await surveyRoutes(appOptions);
    process.stdout.write(values.json ? `${JSON.stringify(table, null, 2)}\n` : formatRouteTable(table));
    return;
  }
  const app = await createApp(appOptions);
  const servers = (values.server as string[] | undefined)?.map((url) => ({ url }));
  const documentOptions = {
    ...(values.project !== undefined ? { project: values.project as string } : {}),
    ...(values.title !== undefined ? { title: values.title as string } : {}),
    ...(values['api-version'] !== undefined ? { version: values['api-version'] as string } : {}),
    ...(servers ? { servers } : {}),
  };
  const text =
    command === 'client'
      ? await emitClient(app.openapi(documentOptions))
      : `${JSON.stringify(command === 'asyncapi' ? app.asyncapi(documentOptions) : app.openapi(documentOptions), null, 2)}\n`;
  if (typeof values.out === 'string') writeFileSync(resolve(values.out), text);
  else process.stdout.write(text);
}
