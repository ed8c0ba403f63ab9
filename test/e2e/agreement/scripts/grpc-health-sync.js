// Client.healthCheck() called as k6's grpc_healthcheck example calls it: synchronously, `.status` read
// off its result, compared with the HealthCheck* constants (no await anywhere).
import { check } from 'k6';
import grpc from 'k6/net/grpc';

export const options = { vus: 1, iterations: 2, thresholds: { checks: ['rate==1'] } };

const client = new grpc.Client();

function serviceStatus(name) {
  return client.healthCheck(name).status;
}

export default () => {
  client.connect(__ENV.GRPC_ADDR, { plaintext: true });
  const response = client.healthCheck();
  check(response, { 'healthcheck status is OK': (r) => r && r.status === grpc.HealthCheckServing });
  // Called here, not inside check()'s functions: a synchronous call there moves the VUs to threads
  // (blocking mode), which has no k6/net/grpc.
  const serving = serviceStatus('k6t.echo.Echo');
  const down = client.healthCheck('k6t.echo.Down').status;
  check(null, {
    'a service is serving': () => serving === grpc.HealthCheckServing,
    'a service is not serving': () => down === grpc.HealthCheckNotServing,
    'constants differ': () => grpc.HealthCheckServing !== grpc.HealthCheckNotServing,
    'a status is not a number literal': () =>
      response.status !== 1 && JSON.stringify(response) === '{"status":1}',
    'constants print as k6 prints them': () =>
      `${grpc.HealthCheckUnknown} ${grpc.HealthCheckServing} ${grpc.HealthCheckNotServing} ${grpc.HealthCheckServiceUnkown}` ===
      'UNKNOWN SERVING NOT_SERVING SERVICE_UNKNOWN',
  });
  client.close();
};
