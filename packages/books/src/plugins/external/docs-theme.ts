import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';
import { LOGOUT_PATH } from '../../auth/guards.js';

export const API_DOCS_PATH = '/v3/api-docs';
export const DOCS_TITLE = 'Book collection service: API';

/** The service's mark (an open book), used as Swagger UI's logo and favicon instead of fastify's. */
export const LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" width="64" height="64">
<path d="M32 14C24 8 12 8 4 11v41c8-3 20-3 28 3 8-6 20-6 28-3V11c-8-3-20-3-28 3z" fill="#2f5d8a"/>
<path d="M32 14v41" stroke="#fff" stroke-width="3"/></svg>`;

const THEME_CSS = `.books-bar{display:flex;justify-content:flex-end;gap:1rem;padding:.5rem 1rem;font-family:sans-serif;background:#1b1b1b;color:#fff}
.books-bar a{color:#fff}`;

/**
 * Runs in the page, before Swagger UI starts: @fastify/swagger-ui points the explore box at its own
 * `./json` copy, so the bundle is wrapped to load (and show) /v3/api-docs instead, as springdoc does.
 * It also puts the sign-out control above the UI (outside the React tree, which would drop it).
 */
const THEME_JS = `(function () {
  var bundle = window.SwaggerUIBundle;
  window.SwaggerUIBundle = Object.assign(function (config) {
    return bundle(Object.assign({}, config, { url: ${JSON.stringify(API_DOCS_PATH)} }));
  }, bundle);
  var bar = document.createElement('nav');
  bar.className = 'books-bar';
  bar.setAttribute('aria-label', 'Account');
  var signOut = document.createElement('a');
  signOut.href = ${JSON.stringify(LOGOUT_PATH)};
  signOut.textContent = 'Sign out';
  bar.appendChild(signOut);
  document.body.insertBefore(bar, document.body.firstChild);
})();`;

/** @fastify/swagger-ui `theme` and `logo` options: the service's name, mark, sign-out control and URL. */
export const swaggerUiBranding: Pick<FastifySwaggerUiOptions, 'theme' | 'logo'> = {
  theme: {
    title: DOCS_TITLE,
    css: [{ filename: 'books.css', content: THEME_CSS }],
    js: [{ filename: 'books.js', content: THEME_JS }],
    favicon: [
      {
        filename: 'books.svg',
        rel: 'icon',
        sizes: 'any',
        type: 'image/svg+xml',
        content: Buffer.from(LOGO_SVG),
      },
    ],
  },
  logo: { type: 'image/svg+xml', content: Buffer.from(LOGO_SVG), href: '/swagger-ui/', target: '_self' },
};
