import { loginFlowSuite } from './login-flow.js';

loginFlowSuite('pglite');
