import { postgresSkip } from '../support/service.js';
import { loginFlowSuite } from './login-flow.js';

loginFlowSuite('postgres', postgresSkip());
