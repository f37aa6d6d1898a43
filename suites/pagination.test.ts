import { defineSuite } from '../src/engine/vitest.ts';
import { suite } from './pagination/index.ts';

defineSuite(suite);
