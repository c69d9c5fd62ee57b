// The book service's layers, top to bottom: a module may import from its own layer and the layers below it,
// never from a layer above. The root .dependency-cruiser.cjs turns this list into lint rules and
// scripts/architecture.mjs draws it into the README (Architecture). Each layer is whole folders or files
// directly under src/, so the folder tree shows the layers.
const src = '^packages/books/src/';

module.exports = {
  // The README's generated graph draws one box per match: each module, and the two kinds of plugin, apart.
  collapse: `${src}(modules/[^/]+|plugins/[^/]+|[^/]+)`,
  layers: [
    // wiring: builds every part, registers the plugins and routes, the API route table, listens
    { name: 'app', path: `${src}(app|main)` },
    // environment → validated settings of every part
    { name: 'config', path: `${src}config[.]ts$` },
    // what answers requests: the API's handlers and HAL resources, the web front, login routes, actuator
    { name: 'routes', path: `${src}(api|web|login|actuator)(/|$)` },
    // the HTML page kit the web front and the login pages share: templates, layout, forms, flash, error pages
    { name: 'pages', path: `${src}pages(/|$)` },
    // fastify plugins and hooks, one concern each: plugins/external wraps third-party ones, plugins/app is ours
    { name: 'plugins', path: `${src}(plugins|rate-limit)(/|$)` },
    // sessions, CSRF, cookies, guards, the signed-in user, the OpenID Connect relying party
    { name: 'auth', path: `${src}auth(/|$)` },
    // pure HTTP helpers: links, pagination, conditional requests, operation types
    { name: 'http', path: `${src}http(/|$)` },
    // the domain: types, services (rules) and repositories (SQL) of books, reservations and users
    { name: 'domain', path: `${src}modules(/|$)` },
    // Database interface, PGlite and pg adapters, migrations
    { name: 'db', path: `${src}db(/|$)` },
    // leaves: the contract (document, generated types), errors, clock, log format, page request, file paths
    {
      name: 'foundation',
      path: `${src}((contract|generated)(/|$)|(clock|errors|log-format|page-request|paths)[.]ts$)`,
    },
  ],
};
