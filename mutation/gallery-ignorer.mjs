// @ts-check
import { PluginKind, declareValuePlugin } from '@stryker-mutator/api/plugin';
// The `gallery` ignorer: mutants in code that runs only when a gallery bug is switched on are Ignored
// (in the report, with the reason, outside the score). The killer runs the clean implementation, so a
// mutant there changes only how a planted bug does its harm; the gallery stage of the killer still
// asks each bug to be caught, which such a mutant almost never changes. The switch tests themselves (`bugs.has(NAME)`) stay mutated:
// turning one off is killed by the gallery, turning one on by the clean check.
//
// What counts as gallery-only, read from the syntax (babel paths, as Stryker's instrumenter walks them):
//   1. the consequent of an `if` or `?:` whose test is a switch, or a `&&` chain with a switch in it;
//   2. the right side of `switch && …` (evaluated only when the bug is on);
//   3. the statements after `if (!switch) return …;` in the same block;
//   4. a declaration whose leading comment says `gallery-only` (a helper called only from such code).

// SUBTLE: Stryker's instrumenter asks the ignorer on its way down, and by then it has already placed the
// mutants of every earlier sibling: an `if`'s test is `stryMutAct_9fa48("3") ? true : … : (stryCov_9fa48("3",
// …), bugs.has('x'))` when the consequent is entered, and a mutated statement is `if (stryMutAct_9fa48(…))
// {…} else { stryCov_9fa48(…); original }`. Reading the plain source shape, the rules matched expressions
// whose test had no mutants and would miss every guarded statement block. `original` and
// `originalStatement` see through both wrappers; the test walks Stryker's own instrumenter.
const isHelperCall = (node, prefix) => node?.type === 'CallExpression' && node.callee.type === 'Identifier' && node.callee.name.startsWith(prefix);

/** The source expression under Stryker's mutant switches and coverage counters. */
export function original(node) {
  if (node?.type === 'ConditionalExpression' && isHelperCall(node.test, 'stryMutAct_')) return original(node.alternate);
  if (node?.type === 'SequenceExpression' && isHelperCall(node.expressions[0], 'stryCov_')) return original(node.expressions.at(-1));
  return node;
}

/** The source statement under Stryker's statement switch (`if (stryMutAct…) {…} else { stryCov…; s }`). */
function originalStatement(node) {
  if (node?.type === 'IfStatement' && isHelperCall(node.test, 'stryMutAct_')) return originalStatement(node.alternate);
  if (node?.type === 'BlockStatement' && node.body.length === 2 && node.body[0].type === 'ExpressionStatement' && original(node.body[0].expression) !== node.body[0].expression) {
    return originalStatement(node.body[1]);
  }
  return node;
}

/** `bugs.has(…)`, `x.bugs.has(…)`, `x.y.bugs.has(…)`: the gallery's one switch test (impl/bugs.ts). */
export function isSwitch(node) {
  node = original(node);
  if (node?.type !== 'CallExpression') return false;
  const callee = node.callee;
  if (callee.type !== 'MemberExpression' || callee.computed || callee.property.type !== 'Identifier' || callee.property.name !== 'has') return false;
  const obj = callee.object;
  if (obj.type === 'Identifier') return obj.name === 'bugs';
  return obj.type === 'MemberExpression' && !obj.computed && obj.property.type === 'Identifier' && obj.property.name === 'bugs';
}

/** The bug a switch names (its string argument), for the reason. */
function bugName(node) {
  const arg = original(original(node).arguments[0]);
  return arg?.type === 'StringLiteral' ? arg.value : '?';
}

/** The switch among the conjuncts of a `&&` chain (or the test itself), if any. */
function switchIn(test) {
  test = original(test);
  if (isSwitch(test)) return test;
  if (test?.type === 'LogicalExpression' && test.operator === '&&') return switchIn(test.left) ?? switchIn(test.right);
  return undefined;
}

/** `if (!switch) return …;` (or `{ …; return …; }`): what follows it in its block runs only with the bug on. */
function negatedGuard(node) {
  node = originalStatement(node);
  if (node?.type !== 'IfStatement' || node.alternate) return undefined;
  const test = original(node.test);
  if (test.type !== 'UnaryExpression' || test.operator !== '!' || !isSwitch(test.argument)) return undefined;
  const c = originalStatement(node.consequent);
  const returns = c.type === 'ReturnStatement' || (c.type === 'BlockStatement' && c.body.at(-1)?.type === 'ReturnStatement');
  return returns ? test.argument : undefined;
}

const reason = (bug) => `gallery-only: runs only with the gallery bug ${bug} switched on; the killer checks the clean implementation, and the gallery stage whether ${bug} is still caught`;

/** The reason to ignore `path`'s subtree, or undefined. */
export function galleryReason(path) {
  const parent = path.parentPath?.node;
  // 1. the arm a switch guards
  if (path.key === 'consequent' && (parent?.type === 'IfStatement' || parent?.type === 'ConditionalExpression')) {
    const s = switchIn(parent.test);
    if (s) return reason(bugName(s));
  }
  // 2. `switch && rest`
  if (path.key === 'right' && parent?.type === 'LogicalExpression' && parent.operator === '&&') {
    const s = switchIn(parent.left);
    if (s) return reason(bugName(s));
  }
  // 3. after `if (!switch) return …;`
  if (path.listKey === 'body' && typeof path.key === 'number' && parent?.type === 'BlockStatement') {
    for (let i = 0; i < path.key; i++) {
      const s = negatedGuard(parent.body[i]);
      if (s) return reason(bugName(s));
    }
  }
  // 4. a helper marked `gallery-only` in its leading comment
  const comments = path.node?.leadingComments ?? [];
  if (comments.some((c) => /\bgallery-only\b/.test(c.value))) return 'gallery-only: a helper called only from code that runs with a gallery bug switched on (its comment says which)';
  return undefined;
}

export const galleryIgnorer = { shouldIgnore: galleryReason };

// Stryker loads this module through base.mjs `plugins` and applies it through `ignorers: ['gallery']`.
export const strykerPlugins = [declareValuePlugin(PluginKind.Ignore, 'gallery', galleryIgnorer)];
