import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import type { DevAccount } from './accounts.js';
import { errorPage, loginPage } from './pages.js';

const interactionPath = /^\/interaction\/([A-Za-z0-9_-]+)$/;
const maxFormBytes = 8 * 1024;

/** True when the request belongs to the sign-in form rather than to oidc-provider itself. */
export function isInteractionRequest(url: string | undefined): boolean {
  return interactionPath.test(new URL(url ?? '/', 'http://idp').pathname);
}

class FormTooLargeError extends Error {
  readonly code = 'DEV_IDP_FORM_TOO_LARGE';
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxFormBytes) throw new FormTooLargeError(`sign-in form larger than ${maxFormBytes} bytes`);
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(html);
}

/**
 * Serves the sign-in step of an authorization request: GET shows the form, POST checks the
 * credentials and hands the account back to oidc-provider, which continues the authorization.
 * Consent is never asked: the only client is first-party (see `loadExistingGrant`).
 */
export function createInteractionHandler(provider: Provider, accounts: readonly DevAccount[]) {
  return async function handleInteraction(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let details: Awaited<ReturnType<Provider['interactionDetails']>>;
    try {
      details = await provider.interactionDetails(req, res);
    } catch {
      sendHtml(
        res,
        400,
        errorPage({
          error: 'invalid_interaction',
          detail:
            'This sign-in attempt expired or its cookie is missing. Start the login again from the application.',
        }),
      );
      return;
    }
    const action = `/interaction/${details.uid}`;
    const client = await provider.Client.find(String(details.params.client_id));
    const clientName = client?.clientName ?? String(details.params.client_id);

    if (details.prompt.name !== 'login') {
      sendHtml(res, 400, errorPage({ error: 'unsupported_prompt', detail: details.prompt.name }));
      return;
    }
    if (req.method === 'GET') {
      sendHtml(res, 200, loginPage({ action, clientName, accounts }));
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'GET, POST' }).end();
      return;
    }
    let form: URLSearchParams;
    try {
      form = await readForm(req);
    } catch (error) {
      sendHtml(res, 413, errorPage({ error: 'form_too_large', detail: (error as Error).message }));
      return;
    }
    const username = form.get('username') ?? '';
    const account = accounts.find((a) => a.username === username && a.password === form.get('password'));
    if (!account) {
      const error = 'Unknown username or wrong password. The accounts are listed below.';
      sendHtml(res, 401, loginPage({ action, clientName, accounts, error, username }));
      return;
    }
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: account.username } },
      { mergeWithLastSubmission: false },
    );
  };
}
