// The house plan, checked by `npm run lint` (dependency-cruiser over packages/, run from the repository root).
// Each package states its own layers, top to bottom, in packages/<name>/layers.cjs; the rules below are
// written once for all of them. Paths are read from the working directory, so test/house-plan.test.ts can
// run these very rules on a scratch copy of a package. Type-only imports may point up a layer (they vanish at run time), and each
// one that does says why in a comment beside it.
const { existsSync, readdirSync } = require('node:fs');
const { join } = require('node:path');

const packagesDir = join(process.cwd(), 'packages');
const packageNames = readdirSync(packagesDir).filter((name) =>
  existsSync(join(packagesDir, name, 'package.json')),
);

// The one file each package lets others import (its package.json "exports").
const publicEntries = [
  '^packages/ratelimit/src/lib[.]ts$',
  '^packages/endpoints/(dist/)?src/(index|factory)[.](ts|js|d[.]ts)$',
  '^packages/testkit/src/index[.]ts$',
];

function layerRules(name) {
  const file = join(packagesDir, name, 'layers.cjs');
  if (!existsSync(file)) return [];
  const { layers } = require(file);
  return layers.flatMap((lower, index) =>
    index === 0
      ? []
      : [
          {
            name: `${name}-layer-${lower.name}`,
            comment: `${name}: ${lower.name} sits below ${layers
              .slice(0, index)
              .map((layer) => layer.name)
              .join(', ')} and must not import them`,
            severity: 'error',
            from: { path: lower.path },
            to: {
              path: layers
                .slice(0, index)
                .map((upper) => `(${upper.path})`)
                .join('|'),
              dependencyTypesNot: ['type-only'],
            },
          },
        ],
  );
}

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Modules that import each other in a circle cannot be understood or changed one at a time.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'testkit-only-in-tests',
      comment: '@platform/testkit is the test harness: only tests and benchmarks may import it.',
      severity: 'error',
      from: { path: '^packages/[^/]+/(src|bin|dev|examples)/', pathNot: '^packages/testkit/' },
      to: { path: '^packages/testkit/' },
    },
    {
      name: 'no-foreign-internals',
      comment: 'A package imports another only through its public entry (package.json "exports").',
      severity: 'error',
      from: { path: '^packages/([^/]+)/' },
      to: { path: '^packages/', pathNot: ['^packages/$1/', ...publicEntries] },
    },
    ...packageNames.flatMap(layerRules),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['(^|/)node_modules/', '(^|/)dist/', '(^|/)src/generated/'] },
    tsPreCompilationDeps: true,
    combinedDependencies: false,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
