import { finalize, mergeTrees, RouteNode } from '../routing/tree.js';
import type { Settings } from '../settings.js';
import { loadPrefix } from './load.js';
import { resolvePrefix } from './prefix.js';
import { DiscoveryReport } from './report.js';

export interface Discovery {
  /** The routing tree, finalized. */
  readonly root: RouteNode;
  readonly report: DiscoveryReport;
}

/**
 * Resolves the prefixes, imports every controller module under them once and merges their trees,
 * the later prefix winning (the route it replaces is reported as a duplicate). Strict unless
 * `survey`: then import errors and duplicates are reported instead of failing.
 */
export async function discover(settings: Settings, options: { survey: boolean }): Promise<Discovery> {
  const report = new DiscoveryReport(options.survey);
  const prefixes = settings.prefixes.map((prefix) => resolvePrefix(prefix, settings.cwd));
  const trees = await Promise.all(prefixes.map((prefix) => loadPrefix(prefix, settings.cwd, report)));
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
