// k6's group(), check() and fail() at their edges: an empty group name (the root stays the root),
// names with '::', a missing callback, check values that are not functions, a check that throws or is
// async, and fail()'s error. What each call threw is in a check name.
import { check, fail, group } from 'k6';

export const options = { iterations: 1 };

const thrown = (f) => {
  try {
    f();
    return 'nothing';
  } catch (e) {
    return `${e.name}: ${e.message}`;
  }
};

// A check name may not hold '::' (k6's path separator): it is written as '<sep>' there.
const record = (what, result) =>
  check(null, { [`${what} -> ${result}`.replaceAll('::', '<sep>')]: () => true });

export default function () {
  group('', () => {
    check(null, { 'in an empty group at the root': () => true });
    group('', () => check(null, { 'in an empty group in an empty group': () => true }));
  });
  group(5, () => check(null, { 'in a group named by a number': () => true }));
  record(
    "group('a::b')",
    thrown(() => group('a::b', () => {})),
  );
  record(
    'group without a callback',
    thrown(() => group('no callback')),
  );
  record(
    "check name with '::'",
    thrown(() => check(1, { 'x::y': () => true })),
  );
  record(
    'check without checks',
    thrown(() => check(1)),
  );
  record(
    'an async check',
    thrown(() => check(1, { async: async () => true })),
  );
  record(
    'a check that throws',
    thrown(() =>
      check(1, {
        'throws, so fails': () => {
          throw new Error('inner');
        },
        'after the throwing one': () => true,
      }),
    ),
  );
  const values = check(5, { 'true value': true, 'false value': false, zero: 0, string: 'x', null: null });
  record('check of plain values returns', values);
  record(
    "fail('custom')",
    thrown(() => fail('custom')),
  );
  record(
    'fail()',
    thrown(() => fail()),
  );
}
