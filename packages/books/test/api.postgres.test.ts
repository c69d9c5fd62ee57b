import { accessMatrixSuite } from './suites/access.js';
import { concurrencySuite } from './suites/concurrency.js';
import { headersAndPagesSuite } from './suites/headers-and-pages.js';
import { hostileInputSuite } from './suites/hostile-input.js';
import { paginationSuite } from './suites/pagination.js';
import { reservationLifecycleSuite } from './suites/reservations.js';
import { sessionsAndCsrfSuite } from './suites/sessions.js';
import { validationSuite } from './suites/validation.js';
import { postgresSkip } from './support/service.js';

const skip = postgresSkip();
accessMatrixSuite('postgres', skip);
reservationLifecycleSuite('postgres', skip);
paginationSuite('postgres', skip);
validationSuite('postgres', skip);
sessionsAndCsrfSuite('postgres', skip);
concurrencySuite('postgres', skip);
hostileInputSuite('postgres', skip);
headersAndPagesSuite('postgres', skip);
