import { defineSuite } from '../src/engine/vitest.ts';
import { operationsSuite } from './operations/index.ts';

defineSuite(operationsSuite);
