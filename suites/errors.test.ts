import { defineSuite } from '../src/engine/vitest.ts';
import { errorsSuite } from './errors/index.ts';

defineSuite(errorsSuite);
