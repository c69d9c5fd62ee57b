import { noticesSuite } from './suites/notices.js';
import { postgresSkip } from './support/service.js';

noticesSuite('pglite');
noticesSuite('postgres', postgresSkip());
