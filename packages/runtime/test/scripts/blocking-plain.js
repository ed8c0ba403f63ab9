// A script the loader can await, forced into blocking mode (K6_TRITON_VU_MODE=blocking); its bare sleep blocks.
import http from 'k6/http';
import { check, sleep } from 'k6';

export const options = { vus: 1, iterations: 2 };

export default function () {
  check(http.get(`${__ENV.BASE}/a`), { 'plain 200': (r) => r.status === 200 });
  sleep(0.01);
}
