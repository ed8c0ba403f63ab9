// constant-vus: `vus` VUs loop for `duration` (k6 docs: Constant VUs).
import { sleep } from 'k6';
export const options = { scenarios: { steady: { executor: 'constant-vus', vus: 2, duration: '1s' } } };
export default function () {
  sleep(0.1); // a bare sleep still paces the iteration
}
