// setup() data reaches every VU and teardown as JSON; nested groups and checks; reported as checks.
import { check, group } from 'k6';

export const options = { vus: 2, iterations: 4 };

export function setup() {
  return { n: 1, when: new Date(0), gone: undefined, list: [1, 'a'] };
}

export default function (data) {
  check(data, { [`vu data ${JSON.stringify(data)}`]: () => true });
  group('outer', () => {
    check(1, { 'in outer': () => true });
    group('inner', () => {
      check(1, { 'in inner': (v) => v === 2 });
    });
  });
}

export function teardown(data) {
  check(data, { [`teardown data ${JSON.stringify(data)}`]: () => true });
}
