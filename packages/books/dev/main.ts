// Runs the development identity provider on its own: `npm run idp -w packages/books`.
// The quickstart (`npm start`) starts it together with the service instead.
import { defaultDevAccounts } from './accounts.js';
import { DevIdentityProviderError, startDevIdentityProvider } from './identity-provider.js';

const port = Number(process.env.DEV_IDP_PORT ?? 3001);
const clientBaseUrl = (process.env.PUBLIC_BASE_URL ?? `http://localhost:${process.env.PORT ?? 3000}`).replace(
  /\/$/,
  '',
);

try {
  const idp = await startDevIdentityProvider({ port, clientBaseUrls: [clientBaseUrl] });
  console.log(`development identity provider at ${idp.issuer} for ${clientBaseUrl}`);
  console.log(`accounts: ${defaultDevAccounts.map((a) => `${a.username}/${a.password}`).join(', ')}`);
  const stop = () => void idp.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} catch (error) {
  if (!(error instanceof DevIdentityProviderError)) throw error;
  console.error(`${error.code}: ${error.message}`);
  process.exit(1);
}
