import { accessMatrixSuite } from './suites/access.js';
import { concurrencySuite } from './suites/concurrency.js';
import { headersAndPagesSuite } from './suites/headers-and-pages.js';
import { hostileInputSuite } from './suites/hostile-input.js';
import { paginationSuite } from './suites/pagination.js';
import { reservationLifecycleSuite } from './suites/reservations.js';
import { sessionsAndCsrfSuite } from './suites/sessions.js';
import { validationSuite } from './suites/validation.js';
import { workflowSuite } from './suites/workflow.js';

accessMatrixSuite('pglite');
reservationLifecycleSuite('pglite');
paginationSuite('pglite');
validationSuite('pglite');
sessionsAndCsrfSuite('pglite');
concurrencySuite('pglite');
hostileInputSuite('pglite');
headersAndPagesSuite('pglite');
workflowSuite('pglite');
