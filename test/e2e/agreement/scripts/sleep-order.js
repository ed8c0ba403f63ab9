// k6's sleep() blocks the VU: code after a bare sleep() runs after it, in a helper function, a method,
// an async function, a group()'s callback and the exported function itself. Each check looks whether
// the code ran after the sleeps before it (elapsed time, with a margin below: sleeps never end early).
import { check, group, sleep } from 'k6';

export const options = { iterations: 1 };

const S = 0.2;
let start = 0;
const steps = [];
const after = (what, sleeps) => steps.push(`${what}: ${Date.now() - start >= sleeps * S * 1000 - 10}`);

function helper() {
  sleep(S);
  after('a helper function, after its sleep', 1);
  return 'its value';
}

const api = {
  listItems() {
    sleep(S);
    after('a method, after its sleep', 2);
  },
};

async function asyncHelper() {
  sleep(S);
  after('an async function, after its sleep', 3);
}

export default function () {
  start = Date.now();
  steps.push(`a helper's return value: ${helper()}`);
  api.listItems();
  asyncHelper();
  group('g', () => {
    sleep(S);
    after("group()'s callback, after its sleep", 4);
  });
  sleep(S);
  after('the exported function, after its sleep', 5);
  check(null, Object.fromEntries(steps.map((s) => [s, () => true])));
}
