import { finalize, mergeTrees, RouteNode } from '../route-tree/tree.js';
import { loadPrefix } from './load.js';
import { resolvePrefix } from './prefix.js';
import { DiscoveryReport } from './report.js';

export interface Discovery {
  /** The routing tree, finalized. */
  readonly root: RouteNode;
  readonly report: DiscoveryReport;
}

/**
 * Resolves the prefixes (relative ones against `cwd`), imports every controller module under them
 * once and merges their trees, the later prefix winning (the route it replaces is reported as a
 * duplicate). Strict unless `survey`: then import errors and duplicates are reported instead of
 * failing.
 */
export async function discover(
  prefixes: readonly string[],
  cwd: string,
  options: { survey: boolean },
): Promise<Discovery> {
  const report = new DiscoveryReport(options.survey);
  const resolved = prefixes.map((prefix) => resolvePrefix(prefix, cwd));
  const trees = await Promise.all(resolved.map((prefix) => loadPrefix(prefix, cwd, report)));
  const root = new RouteNode();
  for (const tree of trees) {
    mergeTrees(root, tree, (lost, winner) =>
      report.skip({
        file: lost.file,
        name: lost.exportName,
        reason: 'duplicate route',
        detail: `replaced by ${winner.file}#${winner.exportName} from a later prefix`,
      }),
    );
  }
  finalize(root);
  return { root, report };
}
