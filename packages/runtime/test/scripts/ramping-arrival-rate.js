// ramping-arrival-rate from 0 to 20 iterations/s over 1s: about 10 iterations (k6 docs: Ramping arrival rate).
export const options = {
  scenarios: {
    rar: {
      executor: 'ramping-arrival-rate',
      startRate: 0,
      timeUnit: '1s',
      preAllocatedVUs: 2,
      maxVUs: 5,
      stages: [{ duration: '1s', target: 20 }],
    },
  },
};
export default function () {}
