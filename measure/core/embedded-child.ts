/**
 * Child-process entry of the embedded server for `k6-triton bench`: the server gets its own
 * process (its own core and event loop), so it never competes with the load generator.
 * Reports its ports to the parent over IPC and stops on 'stop' or when the parent goes away.
 */
import { startCatalogServer } from '../repository/built-in.ts';
import type { EmbeddedOptions } from './embedded.ts';

const { precisions, ...options }: EmbeddedOptions = JSON.parse(process.env.K6_TRITON_SERVER_OPTIONS ?? '{}');
const server = await startCatalogServer({ httpPort: 0, grpcPort: 0, metricsPort: 0, ...options }, precisions);
process.send?.({ httpPort: server.httpPort, grpcPort: server.grpcPort, metricsPort: server.metricsPort });

async function stop(): Promise<void> {
  await server.stop();
  process.exit(0);
}
process.on('message', (message) => {
  if (message === 'stop') void stop();
});
process.on('disconnect', () => void stop());
