/** One streamed request on a new gRPC ModelStreamInfer stream, for the genai benches (grpc-js client). */
import { readDecoupledResponse } from '../../lib/genai/decoupled.ts';
import type { Msg } from '../../packages/server/test/generative-client.ts';

/** One request on a new stream; resolves with the first response's arrival - send, ms. */
export function firstResponse(client: Msg, request: object): Promise<number> {
  return new Promise((resolve, reject) => {
    const call = client.ModelStreamInfer();
    let first: number | undefined;
    const sent = performance.now();
    call.on('data', (m: Msg) => {
      const at = performance.now();
      const read = readDecoupledResponse(m);
      if (read.error) reject(new Error(read.error));
      if (first === undefined && read.outputs > 0) first = at - sent;
      if (read.final) call.end();
    });
    call.on('error', reject);
    call.on('end', () => (first === undefined ? reject(new Error('no response')) : resolve(first)));
    call.write(request);
  });
}
