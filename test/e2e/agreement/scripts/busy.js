// A CPU-bound iteration never yields: it is interrupted when gracefulStop runs out; teardown runs.
import { check } from 'k6';

export const options = {
  scenarios: { busy: { executor: 'constant-vus', vus: 1, duration: '1s', gracefulStop: '0s' } },
};

export default function () {
  while (true) {}
}

export function teardown() {
  check(1, { 'teardown ran': () => true });
}
