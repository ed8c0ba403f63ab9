/**
 * Requests/s that the runtime's k6/net/grpc drives: ModelInfer with a raw_input_contents of --kib KiB
 * (base64 in the request object, k6's JSON mapping) against a local grpc-js server that answers at once.
 *   node --import tsx bench/runtime/grpc.ts [--loops 8] [--seconds 10] [--kib 600] [--fresh]
 * --fresh builds a new base64 string per call (defeats the decoded-bytes cache: the worst case).
 */
import { parseArgs } from 'node:util';
import { Client } from '../../runtime/modules/grpc.ts';
import { runInVu, type Sample, type VuState } from '../../runtime/vu-context.ts';
import { PROTO_DIR } from './bench-proto.ts';
import { processCpu_ms, startServer } from './servers.ts';

const VU_TAGS = { scenario: 'default', group: '' };

function benchVu(
  id: number,
  counter: { samples: number },
  inInit: boolean,
): VuState & { retire(): Promise<void> } {
  const retire: Array<() => void | Promise<void>> = [];
  return {
    idInTest: id,
    inInit,
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

const { values } = parseArgs({
  options: {
    loops: { type: 'string', default: '8' },
    seconds: { type: 'string', default: '10' },
    kib: { type: 'string', default: '600' },
    fresh: { type: 'boolean', default: false },
  },
});
const loops = Number(values.loops);
const seconds = Number(values.seconds);
const kib = Number(values.kib);
if (!Number.isInteger(loops) || loops < 1) throw new Error('invalid --loops; expected an integer >= 1');
if (!(seconds > 0)) throw new Error('invalid --seconds; expected a number > 0');
if (!(kib >= 0)) throw new Error('invalid --kib; expected a number >= 0');

const server = await startServer('grpc', 64);
const addr = `127.0.0.1:${server.port}`;
const counter = { samples: 0 };
const client = new Client();
runInVu(benchVu(0, counter, true), () => client.load([PROTO_DIR], 'grpc_service.proto'));

const tensor = Buffer.alloc(kib * 1024, 3);
const tensorB64 = tensor.toString('base64');
const request = (): unknown => ({
  model_name: 'bench',
  inputs: [{ name: 'INPUT0', datatype: 'UINT8', shape: [1, tensor.length] }],
  // --fresh: a new string object each call (same content), so nothing can be reused.
  raw_input_contents: [values.fresh ? (' ' + tensorB64).slice(1) : tensorB64],
});

let requests = 0;
let errors = 0;
let measuring = false;
let stop = false;
let rssMax_bytes = 0;
const rssTimer = setInterval(() => (rssMax_bytes = Math.max(rssMax_bytes, process.memoryUsage.rss())), 200);
const vus = Array.from({ length: loops }, (_, i) => benchVu(i + 1, counter, false));
const work = vus.map((vu) =>
  runInVu(vu, async () => {
    await client.connect(addr, { plaintext: true, maxReceiveSize: 64 * 1024 * 1024 });
    while (!stop) {
      const res = await client.asyncInvoke('inference.GRPCInferenceService/ModelInfer', request());
      if (measuring) {
        requests++;
        if (res.status !== 0) errors++;
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
const serverCpu = (processCpu_ms(server.child.pid) - serverCpu0) / (elapsed_s * 1000);
stop = true;
await Promise.all(work);
clearInterval(rssTimer);
for (const vu of vus) await vu.retire();
server.stop();
const rate = requests / elapsed_s;
console.log(
  `gRPC ModelInfer ${kib} KiB raw_input_contents${values.fresh ? ' (fresh strings)' : ''}`.padEnd(52) +
    ` loops=${String(loops).padStart(3)}  ${rate.toFixed(0).padStart(6)} req/s  ` +
    `${((rate * tensor.length) / 2 ** 20).toFixed(0).padStart(5)} MiB/s  errors=${errors}  ` +
    `max RSS ${(rssMax_bytes / 2 ** 20).toFixed(0)} MiB  ` +
    `CPU client ${(((cpu.user + cpu.system) / 1e3 / (elapsed_s * 1000)) * 100).toFixed(0)}% server ${(serverCpu * 100).toFixed(0)}%`,
);
process.exit(0);
