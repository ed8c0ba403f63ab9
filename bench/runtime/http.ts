/**
 * Requests/s that the runtime's k6/http drives against a local server that answers at once.
 *   node --import tsx bench/runtime/http.ts [--loops 8] [--seconds 10] [--case small|post600k|get600k|all]
 * Each loop is one VU running `await http.asyncRequest(...)` back to back; samples go to a counting sink.
 */
import { parseArgs } from 'node:util';
import { asyncRequest } from '../../packages/runtime/src/modules/http.ts';
import { benchVu, measureLoops, startServer } from './servers.ts';

interface Case {
  name: string;
  method: string;
  request_bytes: number;
  response_bytes: number;
}

const CASES: Record<string, Case> = {
  small: { name: 'GET, 16-byte response', method: 'GET', request_bytes: 0, response_bytes: 16 },
  post600k: {
    name: 'POST 602 KB body, 16-byte response',
    method: 'POST',
    request_bytes: 602 * 1024,
    response_bytes: 16,
  },
  get600k: { name: 'GET, 600 KB response', method: 'GET', request_bytes: 0, response_bytes: 600 * 1024 },
};

async function runCase(c: Case, loops: number, seconds: number): Promise<void> {
  const server = await startServer('http', c.response_bytes);
  const url = `http://127.0.0.1:${server.port}/`;
  const body = c.request_bytes > 0 ? new Uint8Array(c.request_bytes).fill(7) : null;
  const counter = { samples: 0 };
  const vus = Array.from({ length: loops }, (_, i) => benchVu(i + 1, counter));
  const { requests, errors, elapsed_s, clientCpu, serverCpu, rssMax_bytes } = await measureLoops({
    vus,
    seconds,
    serverPid: server.child.pid,
    request: async () => (await asyncRequest(c.method, url, body)).status === 200,
  });
  for (const vu of vus) await vu.retire();
  server.stop();
  const rate = requests / elapsed_s;
  console.log(
    `${c.name.padEnd(36)} loops=${String(loops).padStart(3)}  ${rate.toFixed(0).padStart(7)} req/s  ` +
      `${((rate * (c.request_bytes + c.response_bytes)) / 2 ** 20).toFixed(0).padStart(5)} MiB/s  ` +
      `errors=${errors}  max RSS ${(rssMax_bytes / 2 ** 20).toFixed(0)} MiB  ` +
      `CPU client ${(clientCpu * 100).toFixed(0)}% server ${(serverCpu * 100).toFixed(0)}%`,
  );
}

const { values } = parseArgs({
  options: {
    loops: { type: 'string', default: '8' },
    seconds: { type: 'string', default: '10' },
    case: { type: 'string', default: 'all' },
  },
});
const loops = Number(values.loops);
const seconds = Number(values.seconds);
if (!Number.isInteger(loops) || loops < 1) throw new Error('invalid --loops; expected an integer >= 1');
if (!(seconds > 0)) throw new Error('invalid --seconds; expected a number > 0');
const names = values.case === 'all' ? Object.keys(CASES) : [values.case!];
for (const name of names) {
  const c = CASES[name];
  if (!c) throw new Error(`invalid --case ${name}; expected ${Object.keys(CASES).join('|')}|all`);
  await runCase(c, loops, seconds);
}
