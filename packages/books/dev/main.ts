// Runs the development identity provider on its own: `npm run idp -w packages/books`.
// The quickstart (`npm start`) starts it together with the service instead.
import { defaultDevAccounts } from './accounts.js';
import {
  DevIdentityProviderError,
  localClientBaseUrls,
  startDevIdentityProvider,
} from './identity-provider.js';

const port = Number(process.env.DEV_IDP_PORT ?? 3001);
const publicBaseUrl = process.env.PUBLIC_BASE_URL?.replace(/\/$/, '');
const clientBaseUrls = publicBaseUrl
  ? [publicBaseUrl]
  : localClientBaseUrls(Number(process.env.PORT ?? 3000));

try {
  const idp = await startDevIdentityProvider({ port, clientBaseUrls });
  console.log(`development identity provider at ${idp.issuer} for ${clientBaseUrls.join(' and ')}`);
  console.log(`accounts: ${defaultDevAccounts.map((a) => `${a.username}/${a.password}`).join(', ')}`);
  const stop = () => void idp.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} catch (error) {
  if (!(error instanceof DevIdentityProviderError)) throw error;
  console.error(`${error.code}: ${error.message}`);
  process.exit(1);
}
