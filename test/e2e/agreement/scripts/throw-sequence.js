// `throw a, b` evaluates a and b and throws b (minified libraries such as chai write their throws so).
import { check } from 'k6';

export const options = { iterations: 1 };

export default function () {
  let n = 0;
  let caught;
  try {
    // biome-ignore format lint/complexity/noCommaOperator: the minified form under test
    throw (n++, new Error('not this')), n++, 'the last value';
  } catch (e) {
    caught = e;
  }
  check(caught, {
    'the last value is thrown': (e) => e === 'the last value',
    'every value is evaluated': () => n === 2,
  });
  const err = (() => {
    try {
      // biome-ignore format lint/complexity/noCommaOperator: the minified form under test
      throw n++, new TypeError('a TypeError, last');
    } catch (e) {
      return e;
    }
  })();
  check(err, { 'an Error as the last value': (e) => e instanceof TypeError && n === 3 });
}
