// A handler that throws ends its stream and fails the iteration with the error (k6: the exception leaves
// sse.open); a threshold names sse_event before any request, as the extension registers it at load.
import sse from 'k6/x/sse';

export const options = { vus: 1, iterations: 2, thresholds: { sse_event: ['count>=0'] } };

export default async function () {
  await sse.open(__ENV.URL, {}, (client) => {
    client.on('event', (e) => {
      throw new Error(`boom ${e.data}`);
    });
  });
  console.log('not reached');
}
