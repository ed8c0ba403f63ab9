/**
 * Requests/s that the runtime's k6/http drives against a local server that answers at once.
 *   node --import tsx bench/runtime/http.ts [--loops 8] [--seconds 10] [--case small|post600k|get600k|all]
 * Each loop is one VU running `await http.asyncRequest(...)` back to back; samples go to a counting sink.
 */
import { parseArgs } from 'node:util';
import { asyncRequest } from '../../runtime/modules/http.ts';
import { runInVu, type Sample, type VuState } from '../../runtime/vu-context.ts';
import { processCpu_ms, startServer } from './servers.ts';

const VU_TAGS = { scenario: 'default', group: '' };

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

/** A VU that only counts its samples (the engine is not part of this measurement). */
function countingVu(id: number, counter: { samples: number }): VuState & { retire(): Promise<void> } {
  const retire: Array<() => void | Promise<void>> = [];
  return {
    idInTest: id,
    inInit: false,
    options: { discardResponseBodies: false, noConnectionReuse: false },
    // One object while the tags hold, as the engine's VUs do.
    tags: () => VU_TAGS,
    emit(samples: Sample[]) {
      counter.samples += samples.length;
    },
    onRetire(fn) {
      retire.push(fn);
    },
    async retire() {
      for (const fn of retire) await fn();
    },
  };
}

async function runCase(c: Case, loops: number, seconds: number): Promise<void> {
  const server = await startServer('http', c.response_bytes);
  const url = `http://127.0.0.1:${server.port}/`;
  const body = c.request_bytes > 0 ? new Uint8Array(c.request_bytes).fill(7) : null;
  const counter = { samples: 0 };
  let requests = 0;
  let errors = 0;
  let rssMax_bytes = 0;
  const rssTimer = setInterval(() => (rssMax_bytes = Math.max(rssMax_bytes, process.memoryUsage.rss())), 200);
  // Warm up the connections and JIT for one second, then measure.
  let measuring = false;
  let stop = false;
  const vus = Array.from({ length: loops }, (_, i) => countingVu(i + 1, counter));
  const work = vus.map((vu) =>
    runInVu(vu, async () => {
      while (!stop) {
        const res = await asyncRequest(c.method, url, body);
        if (measuring) {
          requests++;
          if (res.status !== 200) errors++;
        }
      }
    }),
  );
  await new Promise((r) => setTimeout(r, 1000));
  measuring = true;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const serverCpu0 = processCpu_ms(server.child.pid);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  measuring = false;
  const elapsed_s = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const clientCpu = (cpu.user + cpu.system) / 1e3 / (elapsed_s * 1000);
  const serverCpu = (processCpu_ms(server.child.pid) - serverCpu0) / (elapsed_s * 1000);
  stop = true;
  await Promise.all(work);
  clearInterval(rssTimer);
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
