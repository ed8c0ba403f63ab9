// SharedArray items are frozen, deep: in k6's strict code a write throws a TypeError.
import { check } from 'k6';
import { SharedArray } from 'k6/data';

const items = new SharedArray('items', () => [{ a: 1, nested: { b: 2 } }, [1, 2]]);

export const options = { iterations: 1 };

const throwsTypeError = (write) => {
  try {
    write();
    return false;
  } catch (e) {
    return e instanceof TypeError;
  }
};

export default function () {
  const item = items[0];
  check(null, {
    'setting a property throws': () => throwsTypeError(() => (item.a = 5)),
    'adding a property throws': () => throwsTypeError(() => (item.z = 5)),
    'setting a nested property throws': () => throwsTypeError(() => (item.nested.b = 7)),
    'deleting a property throws': () => throwsTypeError(() => delete item.a),
    'pushing to an array item throws': () => throwsTypeError(() => items[1].push(3)),
    'setting an index throws': () => throwsTypeError(() => (items[0] = 1)),
    'pushing to the SharedArray throws': () => throwsTypeError(() => items.push(1)),
    'the items are unchanged': () =>
      JSON.stringify([items[0], items[1]]) === '[{"a":1,"nested":{"b":2}},[1,2]]',
  });
}
