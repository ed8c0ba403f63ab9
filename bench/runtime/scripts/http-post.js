// Benchmark script: back-to-back POSTs of a binary payload opened once (bench/runtime/engine.ts runs it).
import http from 'k6/http';

const payload = open(__ENV.PAYLOAD, 'b');

export default async function () {
  await http.asyncRequest('POST', __ENV.TARGET, payload, {
    headers: { 'Content-Type': 'application/octet-stream' },
  });
}
