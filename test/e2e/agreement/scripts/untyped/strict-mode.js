// k6 runs scripts as ES modules, which are strict code: assigning an undeclared name throws, `this`
// is undefined in a plain call and in the exported functions; CommonJS modules are strict too.
import { check } from 'k6';
import cjs from './lib/this-cjs.cjs';

export const options = { iterations: 1 };

export default function () {
  let thrown = null;
  try {
    undeclaredName = 1;
  } catch (e) {
    thrown = e;
  }
  check(thrown, { 'an undeclared assignment throws a ReferenceError': (e) => e instanceof ReferenceError });
  check(this, { '`this` is undefined in the exported function': (t) => t === undefined });
  check(
    (function () {
      return this;
    })(),
    { '`this` is undefined in a plain call': (t) => t === undefined },
  );
  check(cjs, {
    "a CommonJS module's top-level `this` is its exports": (m) => m.topLevelThisIsExports === true,
    'a CommonJS module is strict': (m) => m.plainCallThis === 'undefined',
  });
}
