/**
 * Where a new stream's added TTFT goes at c1 (issue 39 item 7): one repeat request at a time, one response
 * `--delay` ms after it, to the embedded server (its own process, as `bench` starts it) and to real Triton
 * (when its binary is found; `--servers inproc` adds the embedded server in this process, where the pre-flight
 * serves its known-delay model, `child` one more in a child process when --embedded-grpc names a running one), from five clients in alternating rounds so the machine's load falls on all:
 *   pa       perf_analyzer --streaming (C++, one stream for all requests), its profile export read
 *   runtime  the Node runtime's k6/net/grpc Stream, a new one per iteration (bench/genai/stream-open.k6.js)
 *   stream-own, stream-lib  the runtime's Stream in this process, a new one per request, on the runtime's
 *            own HTTP/2 connection or on grpc-js (wire-choice.ts): the same code before and after a change
 *   grpcjs   @grpc/grpc-js alone, a new stream per request
 *   h2-new   node:http2 with the request's bytes prebuilt, a new stream per request (Node's floor)
 *   h2-one   the same on one stream for all requests (perf_analyzer's way, in Node)
 * Prints first response - send - delay (the added time), p50 and avg per server and client, ms. Figures only.
 *
 *   node --import tsx bench/genai/stream-open.ts [--rounds 4] [--window 3] [--delay 10] [--clients pa,runtime,...]
 */
import { execFile } from 'node:child_process';
import http2 from 'node:http2';
import { loadavg, tmpdir } from 'node:os';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { summarize } from '../../lib/genai/stats.ts';
import grpc, { waitForStreams } from '../../packages/runtime/src/modules/grpc.ts';
import { setWirePath, type WirePath } from '../../packages/runtime/src/transport/wire-choice.ts';
import { frameMessage } from '../../packages/runtime/src/wire/grpc-frame.ts';
import { followVuAcrossAwaits, runInVu } from '../../packages/runtime/src/vu-context.ts';
import { fakeVu } from '../../packages/runtime/test/fake-vu.ts';
import { startEmbedded } from '../../measure/core/embedded.ts';
import { startCatalogServer } from '../../measure/repository/built-in.ts';
import { startTritonserver } from '../../measure/core/tritonserver.ts';
import { inferenceClient, type Msg } from '../../packages/server/test/generative-client.ts';
import { referenceTool } from '../../test/e2e/tools/reference-tools.ts';
import {
  REPEAT_MODEL,
  removeRepeatRepository,
  repeatInferRequest,
  writeRepeatRepository,
} from '../../test/e2e/triton/repeat-stream.ts';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '4' },
    window: { type: 'string', default: '3' },
    delay: { type: 'string', default: '10' },
    clients: { type: 'string', default: 'pa,runtime,grpcjs,h2-new,h2-one' },
    servers: { type: 'string', default: 'embedded,triton' },
    /** Servers already running (host:port of gRPC), instead of starting them. */
    'embedded-grpc': { type: 'string' },
    'triton-grpc': { type: 'string' },
    /** One more running server, listed as "other" (e.g. the embedded server built from another commit). */
    'other-grpc': { type: 'string' },
  },
});
const ROUNDS = Number(args.rounds);
const WINDOW_S = Number(args.window);
const DELAY_MS = Number(args.delay);
const CLIENTS = args.clients.split(',');
const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const work = mkdtempSync(path.join(tmpdir(), 'k6t-stream-open-'));
const ask = { id: '', values: [1], delays_ms: [DELAY_MS] };

/** Added ms per request (first response - send - delay), for one client on one server over one window. */
type Client = (grpcUrl: string) => Promise<number[]>;

/** Runs `fn` repeatedly for the window; collects what each call returns. */
async function forWindow(fn: () => Promise<number>): Promise<number[]> {
  const out: number[] = [];
  const end = performance.now() + WINDOW_S * 1000;
  while (performance.now() < end) out.push((await fn()) - DELAY_MS);
  return out;
}

const pa = referenceTool('perf_analyzer', 'PERF_ANALYZER');
const paInput = path.join(work, 'in.json');
writeFileSync(paInput, JSON.stringify({ data: [{ IN: [1], DELAY: [DELAY_MS], WAIT: [0] }] }));

const clients: Record<string, Client> = {
  async pa(grpcUrl) {
    if (!pa.path) throw new Error(pa.skipReason);
    const out = path.join(work, 'pa.json');
    rmSync(out, { force: true });
    await run(pa.path, [
      ...['-m', REPEAT_MODEL, '-u', grpcUrl, '-i', 'grpc', '--streaming', '--input-data', paInput],
      ...['--shape', 'IN:1', '--shape', 'DELAY:1', '--shape', 'WAIT:1'],
      ...['--concurrency-range', '1', '--measurement-interval', String(WINDOW_S * 1000), '-s', '100'],
      ...['--profile-export-file', out],
    ]);
    const doc = JSON.parse(readFileSync(out, 'utf8'));
    const added: number[] = [];
    for (const e of doc.experiments)
      for (const r of e.requests)
        if (r.response_timestamps?.length)
          added.push((r.response_timestamps[0] - r.timestamp) / 1e6 - DELAY_MS);
    return added;
  },
  async runtime(grpcUrl) {
    const out = path.join(work, 'summary.json');
    await run(
      process.execPath,
      [
        ...cpuProf('runtime'),
        ...['bin/k6-triton.js', 'run', '-q', '--summary-export', out, '--summary-trend-stats', 'med,avg'],
        ...['-e', `GRPC_ADDR=${grpcUrl}`, '-e', `DELAY_MS=${DELAY_MS}`, '-e', `DURATION=${WINDOW_S}s`],
        'bench/genai/stream-open.k6.js',
      ],
      { cwd: root },
    );
    const m = JSON.parse(readFileSync(out, 'utf8')).metrics.first_response;
    // The export gives aggregates only: med and avg stand for the window's values.
    return [m.med - DELAY_MS, m.avg - DELAY_MS].map((v) => Number(v.toFixed(4))) as number[] & {
      aggregate?: true;
    };
  },
  async grpcjs(grpcUrl) {
    const client: Msg = inferenceClient(grpcUrl);
    await grpcjsFirst(client);
    try {
      return await forWindow(() => grpcjsFirst(client));
    } finally {
      client.close();
    }
  },
  'stream-own': (grpcUrl) => runtimeStreams(grpcUrl, 'own'),
  'stream-lib': (grpcUrl) => runtimeStreams(grpcUrl, 'library'),
  'h2-new': (grpcUrl) => bareHttp2(grpcUrl, false),
  'h2-one': (grpcUrl) => bareHttp2(grpcUrl, true),
};

/**
 * One request on a new grpc-js stream: half-closed at the first response (the repeat model's only one);
 * resolves when the stream has ended, as a k6 iteration does, with first response - send.
 */
function grpcjsFirst(client: Msg): Promise<number> {
  return new Promise((resolve, reject) => {
    const call = client.ModelStreamInfer();
    let first = 0;
    const sent = performance.now();
    call.on('data', () => {
      if (!first) first = performance.now() - sent;
      call.end();
    });
    call.on('error', reject);
    call.on('status', () => resolve(first));
    call.write(repeatInferRequest(ask));
  });
}

/** The runtime's k6/net/grpc Stream in this process (a test VU), one request per new stream, on `wire`. */
async function runtimeStreams(grpcUrl: string, wire: WirePath): Promise<number[]> {
  followVuAcrossAwaits();
  setWirePath(wire);
  const init = fakeVu();
  init.inInit = true;
  const client = new grpc.Client();
  runInVu(init, () => client.load([path.join(root, 'proto')], 'grpc_service.proto'));
  const vu = fakeVu();
  const body = {
    model_name: REPEAT_MODEL,
    inputs: [
      { name: 'IN', datatype: 'INT32', shape: [1], contents: { int_contents: [1] } },
      { name: 'DELAY', datatype: 'UINT32', shape: [1], contents: { uint_contents: [DELAY_MS] } },
      { name: 'WAIT', datatype: 'UINT32', shape: [1], contents: { uint_contents: [0] } },
    ],
  };
  const one = () =>
    runInVu(vu, async () => {
      const stream = new grpc.Stream(client, 'inference.GRPCInferenceService/ModelStreamInfer', {
        timeout: '10s',
      });
      let first = 0;
      const sent = performance.now();
      stream.on('data', () => {
        if (!first) first = performance.now() - sent;
        stream.end();
      });
      stream.write(body);
      await waitForStreams(vu);
      return first;
    });
  try {
    await runInVu(vu, () => client.connect(grpcUrl, { plaintext: true }));
    await one();
    return await forWindow(one);
  } finally {
    await vu.retire();
    setWirePath('own');
  }
}

/** Node flags for a profiled runtime when STREAM_OPEN_PROF names a folder (--cpu-prof-dir). */
function cpuProf(name: string): string[] {
  const dir = process.env.STREAM_OPEN_PROF;
  return dir
    ? ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${name}-${Date.now()}.cpuprofile`]
    : [];
}

/** The request as gRPC frames it: a 0 flag, a 4-byte length, the message. */
function requestFrame(): Buffer {
  const client: Msg = inferenceClient('127.0.0.1:1');
  const bytes: Buffer = client.ModelStreamInfer.requestSerialize(repeatInferRequest(ask));
  client.close();
  return frameMessage(bytes);
}

const HEADERS = {
  ':method': 'POST',
  ':path': '/inference.GRPCInferenceService/ModelStreamInfer',
  'content-type': 'application/grpc',
  te: 'trailers',
};

/** node:http2 with prebuilt bytes: a new stream per request, or one stream for all (`reuse`). */
async function bareHttp2(grpcUrl: string, reuse: boolean): Promise<number[]> {
  const frame = requestFrame();
  const session = http2.connect(`http://${grpcUrl}`);
  await new Promise<void>((resolve, reject) =>
    session.once('connect', () => resolve()).once('error', reject),
  );
  let shared: http2.ClientHttp2Stream | undefined;
  let waiting: ((at: number) => void) | undefined;
  const open = () => {
    const s = session.request(HEADERS);
    // Each response is one DATA chunk here (small messages); the first chunk after a send is its answer.
    s.on('data', () => {
      const at = performance.now();
      const w = waiting;
      waiting = undefined;
      w?.(at);
    });
    s.on('error', () => undefined);
    return s;
  };
  const one = () =>
    new Promise<number>((resolve) => {
      if (reuse && !shared) shared = open();
      const s = reuse ? shared! : open();
      const sent = performance.now();
      waiting = (at) => {
        if (reuse) return resolve(at - sent);
        // A new stream is done when it closes (the server's trailers), as a k6 iteration waits for it.
        s.once('close', () => resolve(at - sent));
        s.end();
      };
      s.write(frame);
    });
  try {
    await one();
    return await forWindow(one);
  } finally {
    shared?.end();
    session.close();
  }
}

async function startServers() {
  const repo = writeRepeatRepository();
  const servers: Record<string, { grpcUrl: string; stop(): Promise<void> }> = {};
  const wanted = args.servers.split(',');
  const given = { embedded: args['embedded-grpc'], triton: args['triton-grpc'], other: args['other-grpc'] };
  for (const [name, grpcUrl] of Object.entries(given))
    if (grpcUrl && wanted.includes(name)) servers[name] = { grpcUrl, stop: async () => undefined };
  if (wanted.includes('inproc')) {
    // The embedded server in this process, as the pre-flight serves its known-delay model.
    const server = await startCatalogServer({
      modelRepository: repo,
      httpPort: 0,
      grpcPort: 0,
      metricsPort: 0,
    });
    servers.inproc = { grpcUrl: `127.0.0.1:${server.grpcPort}`, stop: () => server.stop() };
  }
  if (wanted.includes('child'))
    servers.child = await startEmbedded({ modelRepository: repo, httpPort: 0, grpcPort: 0, metricsPort: -1 });
  if (wanted.includes('embedded') && !servers.embedded)
    servers.embedded = await startEmbedded({
      modelRepository: repo,
      httpPort: 0,
      grpcPort: 0,
      metricsPort: -1,
    });
  const triton = referenceTool('tritonserver', 'TRITONSERVER');
  if (wanted.includes('triton') && !servers.triton) {
    if (triton.path) servers.triton = await startTritonserver({ binary: triton.path, repository: repo });
    else console.error(`real Triton skipped: ${triton.skipReason}`);
  }
  return {
    servers,
    async stop() {
      await Promise.all(Object.values(servers).map((s) => s.stop()));
      removeRepeatRepository(repo);
    },
  };
}

const { servers, stop } = await startServers();
const got: Record<string, number[]> = {};
console.error(
  `start ${new Date().toISOString()}, load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, server] of Object.entries(servers)) {
      for (const c of round % 2 ? CLIENTS.slice().reverse() : CLIENTS) {
        const values = await clients[c]!(server.grpcUrl);
        const key = `${name} ${c}`;
        got[key] = [...(got[key] ?? []), ...values];
      }
    }
    console.error(`round ${round + 1}/${ROUNDS} done, load ${loadavg()[0]!.toFixed(2)}`);
  }
} finally {
  await stop();
  rmSync(work, { recursive: true, force: true });
}
console.log(
  `end ${new Date().toISOString()}, load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
console.log('| server | client | n | added p50 | added avg |');
console.log('|---|---|---|---|---|');
for (const [key, values] of Object.entries(got)) {
  const [server, client] = key.split(' ');
  if (client === 'runtime') {
    // Per-window medians and averages (the summary export's aggregates): the median of each.
    const meds = values.filter((_, i) => i % 2 === 0);
    const avgs = values.filter((_, i) => i % 2 === 1);
    console.log(
      `| ${server} | ${client} | ${meds.length} windows | ${summarize(meds)!.p50.toFixed(3)} | ${summarize(avgs)!.p50.toFixed(3)} |`,
    );
    continue;
  }
  const s = summarize(values)!;
  console.log(`| ${server} | ${client} | ${s.count} | ${s.p50.toFixed(3)} | ${s.avg.toFixed(3)} |`);
}
