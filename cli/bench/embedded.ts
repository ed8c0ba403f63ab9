/** Starts and stops the embedded server in a child process for a bench run. */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ServerOptions } from '../../server/index.ts';

/** A running embedded server: its URLs and how to stop it. */
export interface EmbeddedServer {
  url: string;
  grpcUrl: string;
  stop(): Promise<void>;
}

/** Forks the server on ephemeral 127.0.0.1 ports and waits until it listens. */
export async function startEmbedded(options: ServerOptions = {}): Promise<EmbeddedServer> {
  const child = fork(fileURLToPath(new URL('./embedded-child.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, K6_TRITON_SERVER_OPTIONS: JSON.stringify(options) },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const ports = await new Promise<{ httpPort: number; grpcPort: number }>((resolve, reject) => {
    child.once('message', (m) => resolve(m as { httpPort: number; grpcPort: number }));
    child.once('exit', (code) =>
      reject(new Error(`embedded server exited with code ${code} before listening`)),
    );
    child.once('error', reject);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url: `http://127.0.0.1:${ports.httpPort}`,
    grpcUrl: `127.0.0.1:${ports.grpcPort}`,
    async stop() {
      if (child.exitCode === null) child.send('stop');
      await exited;
    },
  };
}
