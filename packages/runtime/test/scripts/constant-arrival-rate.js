// constant-arrival-rate: `rate` iterations per `timeUnit` for `duration` (k6 docs: Constant arrival rate).
export const options = {
  scenarios: {
    car: {
      executor: 'constant-arrival-rate',
      rate: 20,
      timeUnit: '1s',
      duration: '1s',
      preAllocatedVUs: 2,
      maxVUs: 4,
    },
  },
};
export default function () {}
