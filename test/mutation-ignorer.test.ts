/**
 * The mutation run's fault-switch ignorer (test/mutation/fault-switches.mjs): which mutants it
 * leaves out as inert with no fault on, and which it must still mutate.
 */
// @ts-expect-error: @babel/core ships no types (it comes with Stryker)
import { parseSync, traverse } from '@babel/core';
import { describe, expect, test } from 'vitest';
// @ts-expect-error: a plain ES module without types (Stryker loads it as a plugin)
import { faultSwitches } from './mutation/fault-switches.mjs';
// @ts-expect-error: a plain ES module without types
import { switchedOff } from './mutation/equivalent.mjs';

/** A babel path, as far as this test reads it. */
interface NodePath {
  node: { type: string; start: number; end: number };
}

/** The ignorer's verdict on the first node of `type` whose source is `text`. */
function verdict(code: string, type: string, text: string): string | undefined {
  const ast: unknown = parseSync(code, { filename: 'x.ts', presets: ['@babel/preset-typescript'], configFile: false, babelrc: false });
  let found: NodePath | undefined;
  traverse(ast, {
    enter(p: NodePath) {
      if (!found && p.node.type === type && code.slice(p.node.start, p.node.end) === text) found = p;
    },
  });
  if (!found) throw new Error(`no ${type} ${text}`);
  return (faultSwitches as { shouldIgnore(p: NodePath): string | undefined }).shouldIgnore(found);
}

describe('the fault-switch ignorer', () => {
  test('a const bound to a fault-only expression is a switch where it is used, its initialiser still mutated', () => {
    const code = `function f(faults, header) { const unchecked = faults.has('x') || forgets(faults, 'k', 's'); return unchecked && typeof header === 'string' ? header : 'y'; }`;
    expect(verdict(code, 'BinaryExpression', `typeof header === 'string'`)).toMatch(/fault switch/);
    expect(verdict(code, 'LogicalExpression', `faults.has('x') || forgets(faults, 'k', 's')`)).toBeUndefined();
  });

  test('faults.names.some and faults?.has(…) === true are switches', () => {
    const some = `function f(faults, e) { const billed = faults.names.some((n) => n === e) && e > 1; return billed; }`;
    expect(verdict(some, 'BinaryExpression', 'e > 1')).toMatch(/fault switch/);
    const opt = `function f(faults, a, b) { return a === b || (faults?.has('w') === true && a > b); }`;
    expect(verdict(opt, 'BinaryExpression', 'a > b')).toMatch(/fault switch/);
    // The operand that does not need the fault is mutated.
    expect(verdict(opt, 'BinaryExpression', 'a === b')).toBeUndefined();
  });

  test('the consequent of a test that needs a fault on each side of an || is inert', () => {
    const code = `function f(faults, e) { if ((e === 1 && faults.has('a')) || faults.has('b')) { return { plain: true }; } return { plain: false }; }`;
    expect(verdict(code, 'ObjectExpression', '{ plain: true }')).toMatch(/fault switch/);
    expect(verdict(code, 'ObjectExpression', '{ plain: false }')).toBeUndefined();
  });

  test('a test with one side free of faults is not inert', () => {
    const code = `function f(faults, e) { if (e === 1 || faults.has('b')) { return { plain: true }; } }`;
    expect(verdict(code, 'ObjectExpression', '{ plain: true }')).toBeUndefined();
  });
});

describe('the fault-switch ignorer on code Stryker has already instrumented', () => {
  test('a test wrapped in stryMutAct_/stryCov_ still needs its fault', () => {
    const code = `function f(p, op, faults) { if (stryMutAct_9fa48("12") ? false : (stryCov_9fa48("12"), op.name === 'x' && faults.has('y'))) requireScopes(p, ['admin']); }`;
    expect(verdict(code, 'ArrayExpression', `['admin']`)).toMatch(/fault switch/);
  });
});

describe('survivors equivalent by construction (test/mutation/equivalent.mjs)', () => {
  test('a test holding a positive switch made false is equivalent; made true it is not', () => {
    expect(switchedOff('ConditionalExpression', 'false', `before !== null && ctx.faults.has('x')`)).toBe(true);
    expect(switchedOff('ConditionalExpression', 'false', `faults?.has('w') === true && a > b`)).toBe(true);
    // A negated switch holds with no fault on, and so may a disjunction with a plain side: made false, they change behaviour.
    expect(switchedOff('ConditionalExpression', 'false', `before !== null && !ctx.faults.has('x')`)).toBe(false);
    expect(switchedOff('ConditionalExpression', 'false', `a || faults.has('x')`)).toBe(false);
    expect(switchedOff('ConditionalExpression', 'true', `this.faults.has('x') && a`)).toBe(false);
    expect(switchedOff('ConditionalExpression', 'false', `a > b`)).toBe(false);
  });

  test('a disjunction of switches made a conjunction is equivalent, not when a side holds without a fault', () => {
    expect(
      switchedOff('LogicalOperator', `forgotten(this.faults, ws, found) && forgottenAfterPoll(this.faults, ws, s)`, `forgotten(this.faults, ws, found) || forgottenAfterPoll(this.faults, ws, s)`),
    ).toBe(true);
    expect(switchedOff('LogicalOperator', `this.faults.has('a') && forgets(this.faults, 'b', s)`, `this.faults.has('a') || forgets(this.faults, 'b', s)`)).toBe(true);
    // A conjunct side with a positive switch is false too.
    expect(switchedOff('LogicalOperator', 'x', `this.faults.names.some((n) => n) || (e.status !== 401 && forgets(this.faults, 'f', s))`)).toBe(true);
    expect(switchedOff('LogicalOperator', 'x', `faults.has('a') || (e.status !== 401 && forgets(this.faults, 'f', s))`)).toBe(true);
    // A negated switch is true with no fault on; a plain test is not a switch.
    expect(switchedOff('LogicalOperator', 'x', `faults.has('a') || !faults.has('b')`)).toBe(false);
    expect(switchedOff('LogicalOperator', 'x', `faults.has('a') || a > b`)).toBe(false);
    // The operator made || again (a && b → a || b) is not this form.
    expect(switchedOff('LogicalOperator', `faults.has('a') || faults.has('b')`, `faults.has('a') && faults.has('b')`)).toBe(false);
    // A `||` inside a string or a call is not a side.
    expect(switchedOff('LogicalOperator', 'x', `faults.has('a||b')`)).toBe(false);
  });

  test('forgotten and forgottenAfterPoll are switches to the ignorer too', () => {
    const code = `function f(faults, ws, found, s) { return found && forgotten(faults, ws, found) && s > 1 ? 1 : 2; }`;
    expect(verdict(code, 'BinaryExpression', 's > 1')).toMatch(/fault switch/);
    const poll = `function f(faults, ws, s) { return forgottenAfterPoll(faults, ws, s) && s.length > 1; }`;
    expect(verdict(poll, 'BinaryExpression', 's.length > 1')).toMatch(/fault switch/);
  });
});
