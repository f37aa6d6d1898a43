import { defineSuite } from '../src/engine/vitest.ts';
import { suite } from './definitions/index.ts';

defineSuite(suite);
