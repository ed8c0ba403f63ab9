// Top-level await with VUs added mid-test: an arrival rate that one preallocated VU cannot keep up
// with (each iteration sleeps 0.3 s at 10/s), so the executor initializes more VUs while it runs, and
// each must finish its awaiting init context before its first iteration.
import { check, sleep } from 'k6';
import exec from 'k6/execution';

const ready = await new Promise((resolve) => setTimeout(() => resolve(`vu ${__VU}`), 20));

export const options = {
  scenarios: {
    rate: { executor: 'constant-arrival-rate', rate: 10, duration: '1s', preAllocatedVUs: 1, maxVUs: 6 },
  },
};

export default function () {
  check(ready, { 'init finished before the iteration': (r) => r === `vu ${exec.vu.idInTest}` });
  sleep(0.3);
}
