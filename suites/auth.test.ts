import { defineSuite } from '../src/engine/vitest.ts';
import { authSuite } from './auth/index.ts';

defineSuite(authSuite);
