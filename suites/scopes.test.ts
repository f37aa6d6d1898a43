import { defineSuite } from '../src/engine/vitest.ts';
import { scopesSuite } from './scopes/index.ts';

defineSuite(scopesSuite);
