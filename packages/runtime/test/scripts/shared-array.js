// SharedArray: its function runs once per name for all VUs; the data is a frozen JSON copy (k6/data).
import { check } from 'k6';
import { SharedArray } from 'k6/data';
globalThis.__k6tritonSharedCalls ??= 0;
const users = new SharedArray('users', () => {
  globalThis.__k6tritonSharedCalls++;
  return [{ name: 'a', when: new Date(0) }, { name: 'b' }];
});
export const options = { vus: 3, iterations: 3 };
export default function () {
  check(users, {
    'built once': () => globalThis.__k6tritonSharedCalls === 1,
    'indexable like an array': (u) => u.length === 2 && u[1].name === 'b',
    'JSON copy': (u) => u[0].when === '1970-01-01T00:00:00.000Z',
    'read-only': (u) => Object.isFrozen(u) && Object.isFrozen(u[0]),
  });
}
