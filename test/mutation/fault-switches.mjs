/**
 * A Stryker ignorer for the reference's fault switches. The reference is the conformant target
 * when no fault is on, which is how the mutation tests run it; code a fault switches on is
 * inert then, so a mutant inside it is equivalent (the self-test, not the mutation score,
 * shows each fault is caught). Ignored, with this reason:
 *
 * - the switch itself: a call `<…>faults.has(…)` (`faults?.has(…)`, `… === true`),
 *   `<…>faults.names.some(…)`, `forgets(…)`, `forgotten(…)` or `forgottenAfterPoll(…)`, and a negation of one; a `const` bound to an
 *   expression that needs a fault counts as a switch where it is used (its initialiser is
 *   still mutated: made `true`, it fires the fault);
 * - an operand of an `&&` one of whose other conjuncts is a positive switch (the conjunction is
 *   false whatever the operand is);
 * - code that only runs when a positive switch holds: the consequent of `if (switch …)` or of
 *   `switch ? … : …` whose test is such a conjunction, or a disjunction of such tests.
 *
 * Also ignored: the text of an error message (its constructor's message argument, or the
 * `message` of a validation issue, which goes into the error's data), which the document leaves
 * free.
 *
 * The conjunction or test node itself is not ignored: replacing it with `true` fires the fault
 * and must be killed.
 */
import { declareValuePlugin, PluginKind } from '@stryker-mutator/api/plugin';

const REASON = 'fault switch: inert while no fault is on (the self-test covers the fault)';
const MESSAGE = 'message text: free (part 7 gives defaults; no check reads a message)';

/** The reference's error constructors (src/reference/errors.ts) and their message argument. */
const ERRORS = new Set(['invalid', 'badRequest', 'conflict', 'notFound', 'unauthorized', 'forbidden', 'malformed', 'capabilityOff']);

/** A string or template literal that is (part of) an error's message argument. */
function isMessage(path) {
  for (let p = path; p && p.parentPath; p = p.parentPath) {
    const parent = p.parentPath.node;
    // A validation issue's text ({ path, message: … }): it reaches the error's data, whose content part 7 leaves free.
    if (parent.type === 'ObjectProperty' && parent.value === p.node && !parent.computed && parent.key.type === 'Identifier' && parent.key.name === 'message') return true;
    if (parent.type === 'CallExpression' || parent.type === 'NewExpression') {
      const c = parent.callee;
      const name = c.type === 'Identifier' ? c.name : undefined;
      const index = parent.arguments.indexOf(p.node);
      if (index < 0) return false;
      if (parent.type === 'NewExpression' && name === 'ApiError') return index === 1;
      return name !== undefined && ERRORS.has(name) && index === 0;
    }
    if (!['TemplateLiteral', 'BinaryExpression', 'StringLiteral', 'ConditionalExpression', 'CallExpression', 'MemberExpression'].includes(p.node.type)) return false;
  }
  return false;
}

/** A call of Stryker's instrumentation helpers (stryMutAct_…, stryCov_…). */
const isStrykerCall = (n, prefix) => n?.type === 'CallExpression' && n.callee.type === 'Identifier' && n.callee.name.startsWith(prefix);

/**
 * The original expression behind Stryker's instrumentation, which may already wrap a test when
 * the ignorer sees code inside it: `stryMutAct_…("1") ? mutant : (stryCov_…("1"), original)`.
 */
function unwrap(node) {
  let n = node;
  for (;;) {
    if (n?.type === 'ConditionalExpression' && isStrykerCall(n.test, 'stryMutAct_')) n = n.alternate;
    else if (n?.type === 'SequenceExpression' && isStrykerCall(n.expressions[0], 'stryCov_')) n = n.expressions.at(-1);
    else if (n?.type === 'ParenthesizedExpression') n = n.expression;
    else return n;
  }
}

/** Helpers that answer false with no fault on (faults.ts forgets, sequence-faults.ts forgotten and forgottenAfterPoll). */
const SWITCH_FUNCTIONS = new Set(['forgets', 'forgotten', 'forgottenAfterPoll']);

/** `faults` or `….faults` (optional chaining included). */
const isFaultSet = (o) =>
  (o.type === 'Identifier' && o.name === 'faults') || ((o.type === 'MemberExpression' || o.type === 'OptionalMemberExpression') && o.property.type === 'Identifier' && o.property.name === 'faults');

/**
 * A fault switch: `…faults.has(…)` (or `faults?.has(…)`, or either compared `=== true`),
 * `…faults.names.some(…)` (a fault among the named ones), `forgets(…)`, or a name bound once
 * (`const x = …`) to an expression that needs a fault (see {@link needsFault}).
 */
function isSwitch(node, scope) {
  node = unwrap(node);
  if (!node) return false;
  if (node.type === 'BinaryExpression' && node.operator === '===' && node.right.type === 'BooleanLiteral' && node.right.value === true) return isSwitch(node.left, scope);
  if (node.type === 'Identifier' && scope) return boundToFault(node.name, scope);
  if (node.type !== 'CallExpression' && node.type !== 'OptionalCallExpression') return false;
  const c = node.callee;
  if (c.type === 'Identifier') return SWITCH_FUNCTIONS.has(c.name);
  if ((c.type !== 'MemberExpression' && c.type !== 'OptionalMemberExpression') || c.property.type !== 'Identifier') return false;
  const o = c.object;
  if (c.property.name === 'has') return isFaultSet(o);
  if (c.property.name === 'some')
    return (o.type === 'MemberExpression' || o.type === 'OptionalMemberExpression') && o.property.type === 'Identifier' && o.property.name === 'names' && isFaultSet(o.object);
  return false;
}

/** Whether `name`, as seen from `scope`, is a `const` bound to an expression that needs a fault. */
function boundToFault(name, scope) {
  const binding = scope.getBinding?.(name);
  if (!binding || binding.kind !== 'const' || !binding.path.isVariableDeclarator?.()) return false;
  const init = binding.path.node.init;
  return init !== null && init !== undefined && needsFault(init, binding.path.scope);
}

/** The conjuncts of a chain of `&&` (parentheses are not nodes in babel). */
function conjuncts(node) {
  node = unwrap(node);
  return node.type === 'LogicalExpression' && node.operator === '&&' ? [...conjuncts(node.left), ...conjuncts(node.right)] : [node];
}

/** True when a statement before index `at` of `body` is `if (!switch) return …;` (no else): the rest of the block needs the fault. */
function afterFaultGate(body, at, scope) {
  return body.slice(0, at).some((st) => {
    if (st.type !== 'IfStatement' || st.alternate) return false;
    const t = st.test;
    const gated = t.type === 'UnaryExpression' && t.operator === '!' && isSwitch(t.argument, scope);
    const exits = st.consequent.type === 'ReturnStatement' || (st.consequent.type === 'BlockStatement' && st.consequent.body.at(-1)?.type === 'ReturnStatement');
    return gated && exits;
  });
}

/**
 * A test that holds only when a fault is on: a positive switch is one of its conjuncts, or it is
 * a disjunction each of whose sides needs a fault.
 */
const needsFault = (t, scope) => needsFaultIn(unwrap(t), scope);
const needsFaultIn = (test, scope) =>
  (test.type === 'LogicalExpression' && test.operator === '||' && needsFault(test.left, scope) && needsFault(test.right, scope)) || conjuncts(test).some((c) => isSwitch(c, scope));

/** `issues.push({ path, message })`: an issue's content goes only into the error's data (free: part 7); an empty object is still an issue. */
function isIssueObject(path) {
  const parent = path.parentPath?.node;
  if (path.node.type !== 'ObjectExpression' || parent?.type !== 'CallExpression') return false;
  const c = parent.callee;
  return c.type === 'MemberExpression' && c.object.type === 'Identifier' && c.object.name === 'issues' && c.property.type === 'Identifier' && c.property.name === 'push';
}
const ISSUE = "an issue's path and message: free (part 7), and an empty issue still refuses the body";

/** A label passed to `shifted(…)` or `shift?.(…)`: it only names a bound to a generated bounds fault. */
function isBoundLabel(path) {
  const parent = path.parentPath?.node;
  if (path.node.type !== 'StringLiteral' || !parent || (parent.type !== 'CallExpression' && parent.type !== 'OptionalCallExpression')) return false;
  const c = parent.callee;
  return c.type === 'Identifier' && (c.name === 'shifted' || c.name === 'shift');
}
const BOUND_LABEL = 'the label only names the bound to a generated bounds fault (inert with no fault on)';

export const faultSwitches = {
  shouldIgnore(path) {
    if ((path.node.type === 'StringLiteral' || path.node.type === 'TemplateLiteral') && isMessage(path)) return MESSAGE;
    if (isIssueObject(path)) return ISSUE;
    if (isBoundLabel(path)) return BOUND_LABEL;
    for (let p = path; p; p = p.parentPath) {
      const node = p.node;
      const scope = p.scope;
      if (isSwitch(node)) return REASON;
      if (node.type === 'UnaryExpression' && node.operator === '!' && isSwitch(node.argument)) return REASON;
      const parent = p.parentPath?.node;
      if (!parent) break;
      // An operand of an && chain that holds a positive switch elsewhere.
      if (parent.type === 'LogicalExpression' && parent.operator === '&&') {
        let top = p.parentPath;
        while (top.parentPath?.node.type === 'LogicalExpression' && top.parentPath.node.operator === '&&') top = top.parentPath;
        if (conjuncts(top.node).some((c) => c !== node && isSwitch(c, scope) && !containsNode(node, c))) return REASON;
      }
      // Code guarded by a test that needs a fault.
      // (By the path's key, not node identity: Stryker's traversal may have replaced the node by then.)
      if ((parent.type === 'IfStatement' || parent.type === 'ConditionalExpression') && p.key === 'consequent' && needsFault(parent.test, scope)) return REASON;
      // The right of `switch || …` is reached only when the switch is off: not ignored; the right
      // of `switch && …` is the && rule's. A statement after `if (!switch) return …;` in the same
      // block runs only with the fault on.
      if (parent.type === 'BlockStatement' && p.listKey === 'body' && typeof p.key === 'number' && afterFaultGate(parent.body, p.key, scope)) return REASON;
      if (p.isStatement?.() && parent.type !== 'IfStatement' && parent.type !== 'BlockStatement') break;
    }
    return undefined;
  },
};

function containsNode(outer, inner) {
  if (outer === inner) return true;
  for (const k of Object.keys(outer)) {
    const v = outer[k];
    if (v && typeof v === 'object' && (Array.isArray(v) ? v.some((x) => x && typeof x.type === 'string' && containsNode(x, inner)) : typeof v.type === 'string' && containsNode(v, inner))) return true;
  }
  return false;
}

export const strykerPlugins = [declareValuePlugin(PluginKind.Ignore, 'fault-switches', faultSwitches)];
