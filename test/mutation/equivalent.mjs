/**
 * Survivors that are equivalent by construction, classified from the mutated source text: with
 * no fault on, a fault switch's test is false already, so turning it off changes nothing.
 * Stryker can only disable every mutant of a kind on a line, which would also hide the `true`
 * mutant (the fault fired), so these are left out of the score here instead. Two forms:
 *
 * - a test holding a switch made `false` (`if (… && faults.has('x'))` → `if (false)`);
 * - a disjunction of tests that each need a fault, its `||` made `&&` (both sides are false
 *   with no fault on, so either operator gives false).
 */

/** The reference's fault switches: a fault set's `has` and `names.some`, and the helpers that answer false with no fault on. */
const SWITCH = String.raw`[\w.?]*faults\??\.has|[\w.?]*faults\??\.names\??\.some|forgets|forgotten|forgottenAfterPoll`;

/** `text` split at its `op` (`||` or `&&`) outside parentheses, brackets and strings. */
function topLevel(text, op) {
  const parts = [];
  let depth = 0;
  let quote;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = undefined;
    } else if (ch === "'" || ch === '"' || ch === '`') quote = ch;
    else if (ch === '(' || ch === '[' || ch === '{') depth++;
    else if (ch === ')' || ch === ']' || ch === '}') depth--;
    else if (depth === 0 && ch === op[0] && text[i + 1] === op[1]) {
      parts.push(text.slice(from, i));
      from = i + 2;
      i++;
    }
  }
  parts.push(text.slice(from));
  return parts.map((p) => p.trim());
}

/** `(x)` → `x`, when the parentheses enclose the whole text. */
function unparenthesised(text) {
  if (!text.startsWith('(') || !text.endsWith(')')) return text;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0 && i < text.length - 1) return text;
  }
  return text.slice(1, -1).trim();
}

/** A positive switch call, whole (optionally `=== true`). */
const isSwitchCall = (text) => new RegExp(String.raw`^(?:${SWITCH})\(`).test(text) && topLevel(text, '||').length === 1 && topLevel(text, '&&').length === 1;

/**
 * A test that is false with no fault on: a disjunction whose every side is, or a conjunction
 * one of whose conjuncts is a positive switch.
 */
function needsFault(test) {
  const t = unparenthesised(test.trim());
  const sides = topLevel(t, '||');
  if (sides.length > 1) return sides.every(needsFault);
  return topLevel(t, '&&').some((c) => {
    const u = unparenthesised(c);
    return u !== t ? needsFault(u) : isSwitchCall(u.replace(/\s*===\s*true$/, ''));
  });
}

/**
 * Whether a survivor is equivalent by construction. `source` is the mutated node's original
 * text, `replacement` the mutant's.
 */
export function switchedOff(mutatorName, replacement, source) {
  if (mutatorName === 'ConditionalExpression' && String(replacement) === 'false') return needsFault(source);
  if (mutatorName === 'LogicalOperator') {
    const sides = topLevel(unparenthesised(source.trim()), '||');
    return sides.length > 1 && sides.every(needsFault) && !String(replacement).includes('||');
  }
  return false;
}
