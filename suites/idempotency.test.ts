import { defineSuite } from '../src/engine/vitest.ts';
import { suite } from './idempotency/index.ts';

defineSuite(suite);
