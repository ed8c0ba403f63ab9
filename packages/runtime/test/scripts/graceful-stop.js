// An iteration outliving duration + gracefulStop is interrupted, not counted (k6 docs: Graceful stop).
import { sleep } from 'k6';
export const options = {
  scenarios: { long: { executor: 'constant-vus', vus: 2, duration: '200ms', gracefulStop: '100ms' } },
};
export default async function () {
  await sleep(30);
}
