import { accessMatrixSuite } from './suites/access.js';

accessMatrixSuite('pglite');
