import type { SkippedEntry } from '../discovery/report.js';
import { keywordPlace, type Route, type RouteParameter } from './list.js';
import { parameterSchema, schemaLabel } from './parameter-schema.js';

/** A route as `endpoints routes --json` prints it. */
export interface RouteRow {
  readonly method: string;
  /** `/users/{id}`; `[/{id}]` marks an optional positional, `[/…]` a rest parameter. */
  readonly path: string;
  readonly class: string;
  readonly file: string;
  readonly parameters: readonly ParameterRow[];
}

export interface ParameterRow {
  readonly name: string;
  /** `path`, `query`, `body`, or `query or body` for `ANY`. */
  readonly in: string;
  readonly type: string;
  readonly required: boolean;
  readonly default?: unknown;
}

export interface RouteTable {
  readonly routes: readonly RouteRow[];
  readonly skipped: readonly SkippedEntry[];
}

function displayPath(route: Route): string {
  let path = route.segments.map((segment) => `/${segment}`).join('');
  route.positionals.forEach((param, index) => {
    path += index < route.minPositionals ? `/{${param.name}}` : `[/{${param.name}}]`;
  });
  if (route.rest) path += '[/…]';
  return path || '/';
}

function parameterRow(param: RouteParameter, place: string): ParameterRow {
  const row = {
    name: param.name,
    in: place,
    type: schemaLabel(parameterSchema(param)),
    required: param.required,
  };
  return param.hasDefault ? { ...row, default: param.default } : row;
}

export function routeTable(routes: readonly Route[], skipped: readonly SkippedEntry[]): RouteTable {
  const rows = routes.map((route) => {
    const place = route.method === 'ANY' ? 'query or body' : keywordPlace(route.method);
    const parameters = [
      ...route.positionals.map((param) => parameterRow(param, 'path')),
      ...route.keywords.map((param) => parameterRow(param, place)),
    ];
    if (route.keywordRest) parameters.push({ name: '...', in: place, type: 'any', required: false });
    return {
      method: route.method,
      path: displayPath(route),
      class: route.exportName,
      file: route.file,
      parameters,
    };
  });
  return { routes: rows, skipped };
}

function parameterText(param: ParameterRow): string {
  const optional = param.required ? '' : '?';
  const fallback = Object.hasOwn(param, 'default') ? ` = ${JSON.stringify(param.default)}` : '';
  return `${param.name}${optional}: ${param.type}${fallback} (${param.in})`;
}

/** Columns padded to their widest cell; the last column is not padded. */
function columns(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]?.map((_, index) => Math.max(...rows.map((row) => (row[index] ?? '').length))) ?? [];
  return rows
    .map((row) =>
      row
        .map((cell, index) => (index === row.length - 1 ? cell : cell.padEnd(widths[index] ?? 0)))
        .join('  '),
    )
    .join('\n');
}

/** The table as text: routes, then what was not mounted and why. */
export function formatRouteTable(table: RouteTable): string {
  const routeRows = table.routes.map((row) => [
    row.method,
    row.path,
    row.class,
    row.file,
    row.parameters.map(parameterText).join(', ') || '-',
  ]);
  const lines = [
    `Routes (${table.routes.length}):`,
    columns([['METHOD', 'PATH', 'CLASS', 'FILE', 'PARAMETERS'], ...routeRows]),
  ];
  if (table.skipped.length > 0) {
    const skippedRows = table.skipped.map((entry) => [
      entry.file,
      entry.name ?? '-',
      entry.reason,
      entry.detail,
    ]);
    lines.push(
      '',
      `Not mounted (${table.skipped.length}):`,
      columns([['FILE', 'NAME', 'REASON', 'DETAIL'], ...skippedRows]),
    );
  } else {
    lines.push('', 'Not mounted: nothing.');
  }
  return `${lines.join('\n')}\n`;
}
