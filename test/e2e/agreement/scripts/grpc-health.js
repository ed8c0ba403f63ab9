// Client.healthCheck() and the HealthCheck* constants against the echo server's health service.
// k6's healthCheck is synchronous; the Node runtime's is a promise: `await` serves both.
import { check } from 'k6';
import grpc from 'k6/net/grpc';

const client = new grpc.Client();

export const options = { vus: 1, iterations: 1, thresholds: { checks: ['rate==1'] } };

export default async function () {
  await client.connect(__ENV.GRPC_ADDR, { plaintext: true });
  const all = await client.healthCheck();
  const echo = await client.healthCheck('k6t.echo.Echo');
  const down = await client.healthCheck('k6t.echo.Down');
  let unknown = '';
  try {
    await client.healthCheck('k6t.echo.Nope');
  } catch (err) {
    unknown = String(err);
  }
  check(null, {
    // k6's constants are Go enum values: equal to a status, JSON numbers, not === a number literal.
    'constants as k6 has them': () =>
      JSON.stringify([
        grpc.HealthCheckUnknown,
        grpc.HealthCheckServing,
        grpc.HealthCheckNotServing,
        grpc.HealthCheckServiceUnkown,
      ]) === '[0,1,2,3]',
    'the server is serving': () => all.status === grpc.HealthCheckServing,
    'a service is serving': () => echo.status === grpc.HealthCheckServing,
    'a service is not serving': () => down.status === grpc.HealthCheckNotServing,
    'an unknown service throws NotFound': () =>
      unknown.includes('rpc error: code = NotFound desc = unknown service'),
  });
}
