import { accessMatrixSuite } from './suites/access.js';
import { postgresSkip } from './support/service.js';

const skip = postgresSkip();
accessMatrixSuite('postgres', skip);
