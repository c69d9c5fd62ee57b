import { escapeHtml } from '../auth/login/html.js';

export const STYLESHEET_PATH = '/assets/books.css';
export const LOGOUT_PATH = '/logout';

export interface PageOptions {
  title: string;
  /** The signed-in user's display name; the header then offers the sign-out control. */
  signedInAs?: string | undefined;
  /** Trusted HTML (callers escape what they interpolate). */
  body: string;
}

/**
 * Every HTML page of the service: no inline script or style (the Content-Security-Policy allows
 * neither), one stylesheet, and a sign-out control whenever someone is signed in.
 */
export function htmlPage({ title, signedInAs, body }: PageOptions): string {
  const header =
    signedInAs === undefined
      ? ''
      : `<header><span>Signed in as ${escapeHtml(signedInAs)}</span> <a href="${LOGOUT_PATH}" class="sign-out">Sign out</a></header>`;
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="stylesheet" href="${STYLESHEET_PATH}"></head>
<body>${header}<main>${body}</main></body></html>`;
}
