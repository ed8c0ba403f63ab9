// setup → default → teardown with setup data as a JSON copy; async functions; groups and checks.
import { check, group, sleep } from 'k6';
export const options = { vus: 2, iterations: 4 };
export async function setup() {
  await sleep(0.01);
  return { n: 42, when: new Date(0), list: [1, 2], skip: undefined };
}
export default async function (data) {
  group('outer', () => {
    group('inner', () => {
      check(data, {
        // As k6 (Go's JSON): a Date in RFC 3339 without a zero fraction, undefined → null.
        'data is a JSON copy': (d) => d.n === 42 && d.when === '1970-01-01T00:00:00Z' && d.skip === null,
        // Each VU has its own copy: another VU's change is never visible here.
        'data is per VU': (d) => d.owner === undefined || d.owner === __VU,
      });
    });
  });
  data.owner = __VU; // a VU's copy: changes stay in this VU (and its later iterations)
  await sleep(0.01);
}
export async function teardown(data) {
  check(data, { 'teardown gets setup data': (d) => d.n === 42 && d.list.length === 2 });
}
