/**
 * Factory mode: the default export is an application built from `APP_PREFIX` (or `ENDPOINTS_PREFIX`).
 *   APP_PREFIX=./controllers srvx serve --import tsx --entry node_modules/@platform/endpoints/src/factory.ts
 *   http.createServer((await import('@platform/endpoints/factory')).default.listener).listen(8000)
 */
import { createApp } from './app.js';

const app = await createApp();
export default app;
