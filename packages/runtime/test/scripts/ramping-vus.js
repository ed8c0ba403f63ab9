// ramping-vus: VUs follow the stages from startVUs (k6 docs: Ramping VUs).
import { sleep } from 'k6';
import exec from 'k6/execution';
import { Trend } from 'k6/metrics';
const active = new Trend('active_vus');
export const options = {
  scenarios: {
    ramp: {
      executor: 'ramping-vus',
      startVUs: 0,
      stages: [
        { duration: '0.6s', target: 4 },
        { duration: '0.6s', target: 4 },
        { duration: '0.6s', target: 0 },
      ],
      gracefulRampDown: '0s',
    },
  },
};
export default async function () {
  active.add(exec.instance.vusActive);
  await sleep(0.05);
}
