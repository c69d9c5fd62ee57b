import { relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type ControllerClass, isControllerClass } from '../controller.js';
import { EndpointsError } from '../errors.js';
import { mediaTypeForExtension } from '../http/render.js';
import { classSegment, isPrivateClassName, segmentExtension } from '../naming.js';
import { classHandlers } from '../routing/handler.js';
import { RouteNode } from '../routing/tree.js';
import type { ResolvedPrefix } from './prefix.js';
import { type ModuleFile, scanPrefix } from './scan.js';

async function importModule(module: ModuleFile): Promise<Record<string, unknown>> {
  try {
    return await import(pathToFileURL(module.file).href);
  } catch (error) {
    const hint =
      (error as { code?: string }).code === 'ERR_UNKNOWN_FILE_EXTENSION'
        ? ' (TypeScript controllers need tsx: run through the endpoints CLI in development, or compile them to .js)'
        : '';
    throw new EndpointsError(
      'CONTROLLER_IMPORT_FAILED',
      `cannot import controller module ${module.file}: ${(error as Error).message}${hint}`,
      { cause: error },
    );
  }
}

/** Routable exports of a module: controller classes by export name (`default` counts as `Default`). */
function routableClasses(namespace: Record<string, unknown>): [string, ControllerClass][] {
  const classes: [string, ControllerClass][] = [];
  for (const [exported, value] of Object.entries(namespace)) {
    if (!isControllerClass(value)) continue;
    const name = exported === 'default' ? 'Default' : exported;
    if (isPrivateClassName(name) || (Object.hasOwn(value, 'private') && value.private === true)) continue;
    // `export default class Default` is exported twice under one name; mount it once.
    if (classes.some(([seen, Class]) => seen === name && Class === value)) continue;
    classes.push([name, value]);
  }
  return classes;
}

/** Imports every module under one prefix and builds its routing tree. */
export async function loadPrefix(prefix: ResolvedPrefix, cwd: string): Promise<RouteNode> {
  const modules = scanPrefix(prefix);
  const namespaces = await Promise.all(modules.map(importModule));
  const root = new RouteNode();
  modules.forEach((module, index) => {
    let node = root;
    for (const segment of module.segments) node = node.child(segment);
    const where = relative(cwd, module.file) || module.file;
    for (const [name, Class] of routableClasses(namespaces[index] as Record<string, unknown>)) {
      const source = `${where}#${name}`;
      if (name === 'Default') {
        node.attach(classHandlers(Class, name, where, undefined), source);
        continue;
      }
      const segment = classSegment(name);
      const extension = segmentExtension(segment);
      const mediaType = extension ? mediaTypeForExtension(extension) : undefined;
      node.child(segment).attach(classHandlers(Class, name, where, mediaType), source);
    }
  });
  return root;
}
