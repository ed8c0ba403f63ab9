// Run once per execution segment of 0,1/3,2/3,1: each runtime must split VUs, iterations and the
// arrival rate as k6 does (10 VUs -> 4/3/3, 100 shared iterations and rate 100 for 1s -> 40/30/30).
import { sleep } from 'k6';
import http from 'k6/http';

export const options = {
  scenarios: {
    si: { executor: 'shared-iterations', vus: 10, iterations: 100, exec: 'request' },
    pv: { executor: 'per-vu-iterations', vus: 10, iterations: 2, exec: 'work' },
    cv: { executor: 'constant-vus', vus: 10, duration: '1s', exec: 'paced' },
    rv: {
      executor: 'ramping-vus',
      startVUs: 0,
      stages: [
        { duration: '500ms', target: 10 },
        { duration: '500ms', target: 0 },
      ],
      gracefulRampDown: '0s',
      exec: 'paced',
    },
    car: {
      executor: 'constant-arrival-rate',
      rate: 100,
      timeUnit: '1s',
      duration: '1s',
      preAllocatedVUs: 10,
      exec: 'work',
    },
  },
};

export async function request() {
  await http.asyncRequest('GET', `${__ENV.BASE}/ok`);
}

export function work() {
  sleep(0.01);
}

export function paced() {
  sleep(0.1);
}
