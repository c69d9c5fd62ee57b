/** The parts of a V8 CPU profile (.cpuprofile, as `node --cpu-prof` writes it) a summary needs. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string } }[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileShare {
  item: string;
  /** Share of the busy samples (idle excluded), 0..1. */
  share: number;
}

/**
 * Where a frame's code comes from: a package under node_modules (`fastify`, `@fastify/helmet`),
 * Node's own library (`node:internal/http`), the service's source (`src/http/...`), PGlite's WASM, or
 * V8 itself (garbage collection, compiled code outside any function, builtins).
 */
export function originOf(callFrame: { functionName: string; url: string }): string {
  const { functionName, url } = callFrame;
  if (url === '') return functionName === '' ? '(anonymous native)' : functionName;
  if (url.startsWith('wasm://')) return 'PGlite (WASM)';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const [scope = '', name = ''] = url.slice(modules + '/node_modules/'.length).split('/');
    return scope.startsWith('@') ? `${scope}/${name}` : scope;
  }
  if (url.startsWith('node:')) return url.split('/').slice(0, 2).join('/');
  const source = url.match(/\/packages\/books\/((?:src|bench)\/.*)$/);
  if (source?.[1] !== undefined) return source[1];
  return url;
}

/**
 * Self time by origin, as shares of the samples in which the process was busy (`(idle)` left out),
 * largest first.
 */
export function summarise(
  profile: CpuProfile,
  by: (frame: CpuProfile['nodes'][number]['callFrame']) => string = originOf,
): ProfileShare[] {
  const itemOf = new Map(profile.nodes.map((node) => [node.id, by(node.callFrame)]));
  const time = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, index) => {
    const item = itemOf.get(id) ?? '(unknown)';
    if (item === '(idle)') return;
    const delta = profile.timeDeltas[index] ?? 0;
    busy += delta;
    time.set(item, (time.get(item) ?? 0) + delta);
  });
  return [...time.entries()]
    .map(([item, spent]) => ({ item, share: busy === 0 ? 0 : spent / busy }))
    .sort((a, b) => b.share - a.share);
}

/** A function's self time: its name and where it is (file:line), for the summary's second table. */
export function functionOf(callFrame: { functionName: string; url: string }): string {
  const origin = originOf(callFrame);
  return callFrame.url === '' ? origin : `${callFrame.functionName || '(anonymous)'} (${origin})`;
}
