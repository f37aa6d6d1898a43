import { defineSuite } from '../src/engine/vitest.ts';
import { billingSuite } from './billing/index.ts';

defineSuite(billingSuite);
