// Benchmark script: back-to-back GETs of a small response (bench/runtime/engine.ts runs it).
import http from 'k6/http';

export default async function () {
  await http.asyncRequest('GET', __ENV.TARGET);
}
