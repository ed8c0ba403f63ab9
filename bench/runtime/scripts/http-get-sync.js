// Benchmark script: k6's usual synchronous form, back-to-back GETs (PAUSE=s adds a sleep per iteration).
import { sleep } from 'k6';
import http from 'k6/http';

const PAUSE = Number(__ENV.PAUSE || 0);

export default function () {
  http.get(__ENV.TARGET);
  if (PAUSE > 0) sleep(PAUSE);
}
