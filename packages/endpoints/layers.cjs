// The layers of @platform/endpoints, top to bottom: a module may import from its own layer and the
// layers below it, never from one above (the root .dependency-cruiser.cjs turns this into rules;
// type-only imports are exempt there).
const src = '^packages/endpoints/src/';
module.exports = {
  layers: [
    { name: 'cli', path: `${src}cli/` },
    { name: 'entry', path: `${src}(index|factory|app)[.]ts$` },
    { name: 'interfaces', path: `${src}interfaces/` },
    { name: 'dispatch', path: `${src}(dispatch|deadlines)[.]ts$` },
    // The checks of responseValidation and messageValidation: app.ts builds them, dispatch and the
    // WebSocket interface only hold their types.
    { name: 'validation', path: `${src}validation/` },
    // Made from an OpenAPI document: the AsyncAPI document and the emitted client.
    { name: 'derived documents', path: `${src}(asyncapi|client)/` },
    { name: 'documents', path: `${src}openapi/` },
    // The handlers' types read through the TypeScript compiler, for the documents.
    { name: 'types', path: `${src}types/` },
    { name: 'listing', path: `${src}route-listing/` },
    { name: 'discovery', path: `${src}discovery/` },
    { name: 'route-tree', path: `${src}route-tree/` },
    { name: 'extras', path: `${src}extras/` },
    { name: 'controller', path: `${src}(controller|lifecycle|cors-settings)[.]ts$` },
    { name: 'http', path: `${src}http/` },
    { name: 'binding', path: `${src}binding/` },
    { name: 'base', path: `${src}(errors|naming|media-type|settle|settings)[.]ts$` },
  ],
};
