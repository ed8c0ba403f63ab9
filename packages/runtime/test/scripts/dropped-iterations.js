// Arrival rate beyond what maxVUs can serve: the rest is dropped (dropped_iterations), as in k6.
import { sleep } from 'k6';
export const options = {
  scenarios: {
    slow: {
      executor: 'constant-arrival-rate',
      rate: 20,
      timeUnit: '1s',
      duration: '1s',
      preAllocatedVUs: 1,
      maxVUs: 1,
      gracefulStop: '2s',
    },
  },
};
export default async function () {
  await sleep(0.4);
}
