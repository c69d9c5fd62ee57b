import { relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type ControllerClass, isControllerClass } from '../controller.js';
import { EndpointsError } from '../errors.js';
import { mediaTypeForExtension } from '../media-type.js';
import { classSegment, isPrivateClassName, segmentExtension } from '../naming.js';
import { classHandlers } from '../route-tree/handler.js';
import { RouteNode } from '../route-tree/tree.js';
import type { ResolvedPrefix } from './prefix.js';
import type { DiscoveryReport } from './report.js';
import { type ModuleFile, scanPrefix } from './scan.js';
import { declaredClasses } from './source.js';

async function importModule(module: ModuleFile): Promise<Record<string, unknown>> {
  try {
    return moduleExports(await import(pathToFileURL(module.file).href));
  } catch (error) {
    const hint = importHint(error as NodeJS.ErrnoException);
    throw new EndpointsError(
      'CONTROLLER_IMPORT_FAILED',
      `cannot import controller module ${module.file}: ${(error as Error).message}${hint}`,
      { cause: error },
    );
  }
}

/** What to do about an import failure a newcomer can cause. */
function importHint(error: NodeJS.ErrnoException): string {
  if (error.code === 'ERR_UNKNOWN_FILE_EXTENSION') {
    return ' (TypeScript controllers need tsx: run through the endpoints CLI in development, or compile them to .js)';
  }
  // `@platform/endpoints` resolves to its compiled dist/, which `npm ci` builds (the root prepare script).
  if (
    /not found|cannot find module/i.test(error.message) &&
    /[\\/]endpoints[\\/]dist[\\/]/.test(error.message)
  ) {
    return ' (@platform/endpoints is not built: run `npm run build -w packages/endpoints` at the repository root)';
  }
  return '';
}

/**
 * A `.ts` file in a package without `"type": "module"` is CommonJS to tsx: its `export`s arrive as
 * the default export, an object the transform marks `__esModule`. Those are the module's exports.
 */
function moduleExports(namespace: Record<string, unknown>): Record<string, unknown> {
  const fallback = namespace.default as { __esModule?: unknown } | null | undefined;
  return typeof fallback === 'object' && fallback !== null && fallback.__esModule === true
    ? (fallback as Record<string, unknown>)
    : namespace;
}

/** Imports a module, or records the import error when surveying; null when it could not be imported. */
async function importOrReport(
  module: ModuleFile,
  where: string,
  report: DiscoveryReport,
): Promise<Record<string, unknown> | null> {
  try {
    return await importModule(module);
  } catch (error) {
    const cause = (error as Error).cause as Error | undefined;
    const detail = cause?.message ?? (error as Error).message;
    report.fail({ file: where, reason: 'import error', detail }, error as EndpointsError);
    return null;
  }
}

function isClass(value: unknown): value is abstract new (...args: never) => unknown {
  return typeof value === 'function' && /^class\b/.test(Function.prototype.toString.call(value));
}

/**
 * Routable exports of a module: controller classes by export name (`default` counts as `Default`).
 * Exported classes that are private or not controllers go to the report.
 */
function routableClasses(
  namespace: Record<string, unknown>,
  where: string,
  report: DiscoveryReport,
): [string, ControllerClass][] {
  const classes: [string, ControllerClass][] = [];
  for (const [exported, value] of Object.entries(namespace)) {
    const name = exported === 'default' ? 'Default' : exported;
    if (!isControllerClass(value)) {
      if (isClass(value)) {
        report.skip({
          file: where,
          name,
          reason: 'not a Controller subclass',
          detail: 'an exported class that does not extend Controller',
        });
      }
      continue;
    }
    // `export default class Default` is exported twice under one name; mount it once.
    if (classes.some(([seen, Class]) => seen === name && Class === value)) continue;
    if (isPrivateClassName(name)) {
      const detail = name.startsWith('_')
        ? `names starting with '_' are private`
        : `names ending in 'Controller' are private`;
      report.skip({ file: where, name, reason: 'private name', detail });
      continue;
    }
    if (Object.hasOwn(value, 'private') && value.private === true) {
      report.skip({ file: where, name, reason: 'private name', detail: 'static private = true' });
      continue;
    }
    classes.push([name, value]);
  }
  return classes;
}

/** Classes a module's source declares with `extends` that it does not export, for the report. */
function reportUnexported(
  module: ModuleFile,
  namespace: Record<string, unknown>,
  where: string,
  report: DiscoveryReport,
) {
  const exported = new Set<string>(Object.keys(namespace));
  for (const value of Object.values(namespace)) if (typeof value === 'function') exported.add(value.name);
  for (const name of declaredClasses(module.file)) {
    if (exported.has(name)) continue;
    report.skip({
      file: where,
      name,
      reason: 'not exported',
      detail: 'a class the module declares but does not export',
    });
  }
}

/**
 * Imports every module under one prefix and builds its routing tree. Classes a module declares
 * without exporting are found only when the report is read (that reads each module's source).
 */
export async function loadPrefix(
  prefix: ResolvedPrefix,
  cwd: string,
  report: DiscoveryReport,
): Promise<RouteNode> {
  const relativeTo = (file: string) => relative(cwd, file) || file;
  const modules = scanPrefix(prefix, report, cwd);
  const namespaces = await Promise.all(
    modules.map((module) => importOrReport(module, relativeTo(module.file), report)),
  );
  const root = new RouteNode();
  modules.forEach((module, index) => {
    const namespace = namespaces[index];
    if (!namespace) return;
    let node = root;
    for (const segment of module.segments) node = node.child(segment);
    const where = relativeTo(module.file);
    report.defer(() => reportUnexported(module, namespace, where, report));
    for (const [name, Class] of routableClasses(namespace, where, report)) {
      const origin = { file: where, exportName: name };
      let target = node;
      let mediaType: string | undefined;
      if (name !== 'Default') {
        const segment = classSegment(name);
        const extension = segmentExtension(segment);
        mediaType = extension ? mediaTypeForExtension(extension) : undefined;
        target = node.child(segment);
      }
      const handlers = classHandlers(Class, name, where, mediaType);
      try {
        target.attach(handlers, origin);
      } catch (error) {
        const detail = `same path as ${target.source}`;
        report.fail({ file: where, name, reason: 'duplicate route', detail }, error as EndpointsError);
      }
    }
  });
  return root;
}
