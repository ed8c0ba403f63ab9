// Benchmark script: the asynchronous form our scenarios use, back-to-back GETs (PAUSE=s adds a sleep).
import { sleep } from 'k6';
import http from 'k6/http';

const PAUSE = Number(__ENV.PAUSE || 0);

export default async function () {
  await http.asyncRequest('GET', __ENV.TARGET);
  if (PAUSE > 0) await sleep(PAUSE);
}
