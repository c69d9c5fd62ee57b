// The book service's layers, top to bottom: a module may import from its own layer and the layers below it,
// never from a layer above (the root .dependency-cruiser.cjs turns this list into rules). README: Architecture.
const src = '^packages/books/src/';
/** The API's handlers and HAL resources live beside their module but are routes, not domain. */
const apiRoutes = `${src}modules/[^/]+/[^/]+[.](handlers?|resource)[.]ts$`;

module.exports = {
  // The README's generated graph draws one box per match: each module's API routes apart from its domain.
  collapse: `${src}(modules/[^/]+/[^/]+[.](handlers?|resource)[.]ts|modules/[^/]+|auth/login|plugins/[^/]+|[^/]+)`,
  layers: [
    // wiring: builds every part, registers the plugins and routes, the API route table, listens
    { name: 'app', path: `${src}(app|main)` },
    // environment → validated settings of every part
    { name: 'config', path: `${src}config[.]ts$` },
    // what answers requests: web front pages, login routes, actuator, API handlers and resources
    { name: 'routes', path: `${src}(web|actuator|auth/login)/|${apiRoutes}` },
    // the HTML page kit the web front and the login pages share: templates, layout, forms, flash, error pages
    { name: 'pages', path: `${src}pages/` },
    // fastify plugins and hooks, one concern each: plugins/external wraps third-party ones, plugins/app is ours
    { name: 'plugins', path: `${src}(plugins|rate-limit)/` },
    // sessions, CSRF, cookies, guards, the OpenID Connect relying party
    { name: 'auth', path: `${src}auth/(?!login/)` },
    // pure HTTP helpers: links, pagination, conditional requests, operation types
    { name: 'http', path: `${src}http/` },
    // the domain: types, services (rules) and repositories (SQL) of books, reservations and users
    { name: 'domain', path: `${src}modules/(?![^/]+/[^/]+[.](handlers?|resource)[.]ts$)` },
    // Database interface, PGlite and pg adapters, migrations
    { name: 'db', path: `${src}db/` },
    // leaves: the contract (document, generated types), errors, clock, log format, page request, file paths
    {
      name: 'foundation',
      path: `${src}(contract/|generated/|(clock|errors|log-format|page-request|paths)[.]ts$)`,
    },
  ],
};
