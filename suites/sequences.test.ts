import { defineSuite } from '../src/engine/vitest.ts';
import { sequencesSuite } from './sequences/index.ts';

defineSuite(sequencesSuite);
