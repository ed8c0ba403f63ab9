/**
 * Child-process entry of the embedded server for `k6-triton bench`: the server gets its own
 * process (its own core and event loop), so it never competes with the load generator.
 * Reports its ports to the parent over IPC and stops on 'stop' or when the parent goes away.
 */
import { startServer } from '@k6-triton/server';

const options = JSON.parse(process.env.K6_TRITON_SERVER_OPTIONS ?? '{}');
const server = await startServer({ httpPort: 0, grpcPort: 0, metricsPort: 0, ...options });
process.send?.({ httpPort: server.httpPort, grpcPort: server.grpcPort, metricsPort: server.metricsPort });

async function stop(): Promise<void> {
  await server.stop();
  process.exit(0);
}
process.on('message', (message) => {
  if (message === 'stop') void stop();
});
process.on('disconnect', () => void stop());
