import type { FastifyInstance } from 'fastify';
import { STYLESHEET_PATH } from '../pages/layout.js';

// One small stylesheet for every page (a file: the pages' CSP forbids inline styles). Mobile first:
// one column, then wider cards from 40rem. Colours keep a contrast of at least 4.5:1 (WCAG AA).
const STYLESHEET = `*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;line-height:1.5;color:#1d232a;background:#f5f6f8}
a{color:#0b57a4}a:hover{color:#063d75}
a:focus-visible,button:focus-visible,input:focus-visible,textarea:focus-visible{outline:3px solid #f0a500;outline-offset:2px}
header.site{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1.5rem;padding:.75rem 1rem;background:#1d3557;color:#fff}
header.site a{color:#fff}
.brand{font-weight:700;font-size:1.15rem;text-decoration:none}
header.site nav ul{display:flex;flex-wrap:wrap;gap:.25rem 1rem;margin:0;padding:0;list-style:none}
header.site nav a[aria-current=page]{text-decoration-thickness:3px}
.account{display:flex;align-items:center;gap:.75rem;margin-left:auto}
main{max-width:52rem;margin:0 auto;padding:1rem}
h1{font-size:1.6rem;margin:.5rem 0 1rem}h2{font-size:1.2rem;margin:.25rem 0}
form.inline{display:inline-block;margin:.25rem .5rem .25rem 0}
button,.button{display:inline-block;font:inherit;padding:.45rem 1rem;border-radius:.35rem;border:1px solid #0b57a4;background:#0b57a4;color:#fff;cursor:pointer;text-decoration:none}
button:hover,.button:hover{background:#063d75;color:#fff}
button.secondary,.button.secondary{background:#fff;color:#0b57a4}
button.secondary:hover,.button.secondary:hover{background:#e8f0fa;color:#063d75}
button.danger{background:#b3261e;border-color:#b3261e}button.danger:hover{background:#8c1d17}
button.link{background:none;border:1px solid #fff;color:#fff;padding:.2rem .75rem}
button.link:hover{background:#fff;color:#1d3557}
.search{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin-bottom:1rem}
.search label{font-weight:600}
.search input{flex:1 1 14rem;font:inherit;padding:.45rem .6rem;border:1px solid #6b7280;border-radius:.35rem}
.list-header{display:flex;flex-wrap:wrap;justify-content:space-between;align-items:center;gap:.5rem}
.summary{margin:.25rem 0}
nav.sort{display:flex;gap:.5rem;align-items:center}
nav.sort ul{display:flex;gap:.75rem;margin:0;padding:0;list-style:none}
nav.sort a[aria-current]{font-weight:700;color:#1d232a}
ul.cards{list-style:none;margin:1rem 0;padding:0;display:grid;gap:.75rem}
@media (min-width:40rem){ul.cards{grid-template-columns:repeat(2,1fr)}}
.card,.panel{background:#fff;border:1px solid #d5d9e0;border-radius:.5rem;padding:.9rem 1rem}
.panel{margin:1rem 0}
.narrow{max-width:28rem;margin:2rem auto}
.card h2{font-size:1.1rem}
.author{margin:0;color:#4b5563}
.availability{margin:.25rem 0;font-weight:600;color:#8a4b00}
.availability.free{color:#1e6b34}
.badge{display:inline-block;margin:.25rem 0;padding:0 .5rem;border-radius:1rem;background:#e8f0fa;color:#063d75;font-size:.9rem}
.status{margin:.25rem 0}
.overdue{color:#8c1d17}
.table-scroll{overflow-x:auto}
table.audit,table.notices{border-collapse:collapse;width:100%;background:#fff;font-size:.95rem}
table.audit caption,table.notices caption{text-align:left;font-weight:600;padding:.25rem 0}
table.audit th,table.audit td,table.notices th,table.notices td{border:1px solid #d5d9e0;padding:.35rem .5rem;text-align:left;vertical-align:top}
fieldset{border:1px solid #d5d9e0;border-radius:.5rem;background:#fff;margin:0 0 1rem;padding:.5rem 1rem}
legend{font-weight:600;padding:0 .25rem}
ul.checks{list-style:none;margin:0;padding:0}ul.checks li{margin:.25rem 0}
label.block{display:block;font-weight:600;margin-bottom:.25rem}
input.wide{width:100%;font:inherit;padding:.45rem .6rem;border:1px solid #6b7280;border-radius:.35rem;background:#fff}
article.mail{background:#fff;border:1px solid #d5d9e0;border-radius:.5rem;padding:.9rem 1rem;margin:0 0 1rem}
article.mail dl{display:grid;grid-template-columns:max-content 1fr;gap:0 1rem;margin:.5rem 0}
article.mail dt{font-weight:600}article.mail dd{margin:0;overflow-wrap:anywhere}
article.mail pre{white-space:pre-wrap;font:inherit;margin:.5rem 0 0;padding-top:.5rem;border-top:1px solid #d5d9e0}
.search select{font:inherit;padding:.4rem .5rem;border:1px solid #6b7280;border-radius:.35rem}
.muted{color:#4b5563;font-size:.9rem;margin:.25rem 0}
.synopsis{white-space:pre-line}
.flash{padding:.6rem .9rem;border-radius:.35rem;border:1px solid}
.flash-success{background:#e7f5ea;border-color:#1e6b34;color:#14502a}
.flash-error{background:#fdecea;border-color:#b3261e;color:#8c1d17}
.pager{display:flex;gap:1rem;align-items:center;justify-content:center;margin:1rem 0}
.empty{color:#4b5563}
.book-form .field{margin:0 0 1rem}
.book-form label{display:block;font-weight:600;margin-bottom:.25rem}
.book-form input,.book-form textarea{width:100%;font:inherit;padding:.45rem .6rem;border:1px solid #6b7280;border-radius:.35rem}
.field.invalid input,.field.invalid textarea{border-color:#b3261e}
.field-error{color:#8c1d17;margin:.25rem 0 0}
.providers{list-style:none;padding:0}
.danger-zone{border-color:#b3261e}`;

/** The stylesheet of the service's own pages (a file, because the CSP forbids inline styles). */
export async function pageAssets(app: FastifyInstance): Promise<void> {
  app.get(STYLESHEET_PATH, async (_request, reply) => reply.type('text/css; charset=utf-8').send(STYLESHEET));
}
