/**
 * Requests/s that the runtime's k6/net/grpc drives: ModelInfer with a raw_input_contents of --kib KiB
 * (base64 in the request object, k6's JSON mapping) against a local grpc-js server that answers at once.
 *   node --import tsx bench/runtime/grpc.ts [--loops 8] [--seconds 10] [--kib 600] [--fresh]
 * --fresh builds a new base64 string per call (defeats the decoded-bytes cache: the worst case).
 */
import { parseArgs } from 'node:util';
import { Client } from '../../packages/runtime/src/modules/grpc.ts';
import { runInVu } from '../../packages/runtime/src/vu-context.ts';
import { PROTO_DIR } from './bench-proto.ts';
import { benchVu, measureLoops, startServer } from './servers.ts';

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

const vus = Array.from({ length: loops }, (_, i) => benchVu(i + 1, counter, false));
const { requests, errors, elapsed_s, clientCpu, serverCpu, rssMax_bytes } = await measureLoops({
  vus,
  seconds,
  serverPid: server.child.pid,
  start: () => client.connect(addr, { plaintext: true, maxReceiveSize: 64 * 1024 * 1024 }),
  request: async () =>
    (await client.asyncInvoke('inference.GRPCInferenceService/ModelInfer', request())).status === 0,
});
for (const vu of vus) await vu.retire();
server.stop();
const rate = requests / elapsed_s;
console.log(
  `gRPC ModelInfer ${kib} KiB raw_input_contents${values.fresh ? ' (fresh strings)' : ''}`.padEnd(52) +
    ` loops=${String(loops).padStart(3)}  ${rate.toFixed(0).padStart(6)} req/s  ` +
    `${((rate * tensor.length) / 2 ** 20).toFixed(0).padStart(5)} MiB/s  errors=${errors}  ` +
    `max RSS ${(rssMax_bytes / 2 ** 20).toFixed(0)} MiB  ` +
    `CPU client ${(clientCpu * 100).toFixed(0)}% server ${(serverCpu * 100).toFixed(0)}%`,
);
process.exit(0);
