// All six executors at once, each short; iterations are fixed for the iteration executors.
import { sleep } from 'k6';

export const options = {
  scenarios: {
    shared: { executor: 'shared-iterations', vus: 2, iterations: 6, exec: 'work' },
    pervu: { executor: 'per-vu-iterations', vus: 2, iterations: 3, exec: 'work' },
    constant: { executor: 'constant-vus', vus: 2, duration: '1s', exec: 'paced' },
    ramping: {
      executor: 'ramping-vus',
      startVUs: 0,
      stages: [
        { duration: '500ms', target: 2 },
        { duration: '500ms', target: 0 },
      ],
      gracefulRampDown: '0s',
      exec: 'paced',
    },
    car: {
      executor: 'constant-arrival-rate',
      rate: 10,
      timeUnit: '1s',
      duration: '1s',
      preAllocatedVUs: 2,
      exec: 'work',
    },
    rar: {
      executor: 'ramping-arrival-rate',
      startRate: 0,
      timeUnit: '1s',
      preAllocatedVUs: 2,
      stages: [{ duration: '1s', target: 20 }],
      exec: 'work',
    },
  },
};

export function work() {
  sleep(0.01);
}

export function paced() {
  sleep(0.1);
}
