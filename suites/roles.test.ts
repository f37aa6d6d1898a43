import { defineSuite } from '../src/engine/vitest.ts';
import { rolesSuite } from './roles/index.ts';

defineSuite(rolesSuite);
