/**
 * Trivial servers for the runtime benchmarks, run in a child process so that the server has its own
 * event loop (and core), as with k6 against a separate Node server. Usage (internal):
 *   node --import tsx bench/runtime/servers.ts http|grpc <response_bytes>
 * prints "PORT <n>" on stdout once listening.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createHttp2Server, type ServerHttp2Session } from 'node:http2';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { runInVu, type Sample, type VuState } from '../../packages/runtime/src/vu-context.ts';
import { DEFAULT_CLIENT_TLS } from '../../packages/runtime/src/transport/tls-client.ts';

/** HTTP/2 receive window of the gRPC benchmark server. */
const WINDOW_BYTES = 16 * 1024 * 1024;

/** CPU time (user + system) of a process in ms, from /proc; 0 where /proc is absent. */
export function processCpu_ms(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}

/** A running benchmark server in a child process. */
export interface BenchServer {
  port: number;
  child: ChildProcess;
  stop(): void;
}

/** Starts `kind` server in a child process answering every request at once with `response_bytes` bytes. */
export function startServer(kind: 'http' | 'grpc', response_bytes: number): Promise<BenchServer> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(import.meta.url), kind, String(response_bytes)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /PORT (\d+)/.exec(out);
      if (m) resolve({ port: Number(m[1]), child, stop: () => child.kill('SIGTERM') });
    });
    child.once('exit', (code) => reject(new Error(`bench server exited with code ${code}`)));
  });
}

async function serveHttp(response_bytes: number): Promise<void> {
  const payload = Buffer.alloc(response_bytes, 0x61);
  const server = createServer((req, res) => {
    req.on('data', () => undefined);
    req.on('end', () => {
      res.setHeader('content-type', 'application/octet-stream');
      res.end(payload);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    const addr = server.address();
    process.stdout.write(`PORT ${typeof addr === 'object' && addr ? addr.port : 0}\n`);
  });
}

/**
 * ModelInfer over node:http2 directly: every request is read to its end and answered with one reply
 * encoded at start-up. A grpc-js server (its reassembly and stream machinery) saturated its core at
 * about 1,750 requests/s of 602 KB, before the client did; this one only pays for HTTP/2 itself.
 */
async function serveGrpc(response_bytes: number): Promise<void> {
  const { encodeReply } = await import('./bench-proto.ts');
  const reply = encodeReply(response_bytes);
  // gRPC's length-prefixed message: a compression flag byte (0), then the length, big-endian.
  const message = Buffer.alloc(5 + reply.length);
  message.writeUInt32BE(reply.length, 1);
  reply.copy(message, 5);
  // A large receive window (gRPC C++ and grpc-go grow theirs) and Nagle off, as a Triton server has.
  const server = createHttp2Server({ settings: { initialWindowSize: WINDOW_BYTES } });
  server.on('connection', (socket: Socket) => socket.setNoDelay(true));
  server.on('session', (session: ServerHttp2Session) => session.setLocalWindowSize(WINDOW_BYTES));
  server.on('stream', (stream) => {
    stream.on('data', () => undefined);
    stream.on('end', () => {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      stream.end(message);
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const addr = server.address();
    process.stdout.write(`PORT ${typeof addr === 'object' && addr ? addr.port : 0}\n`);
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const kind = process.argv[2];
  const bytes = Number(process.argv[3] ?? 16);
  process.on('SIGTERM', () => process.exit(0));
  if (kind === 'http') void serveHttp(bytes);
  else if (kind === 'grpc') void serveGrpc(bytes);
  else {
    process.stderr.write('usage: servers.ts http|grpc <response_bytes>\n');
    process.exit(2);
  }
}

/** What measureLoops saw in its window; CPU shares are of one core. */
export interface LoopMeasurement {
  requests: number;
  errors: number;
  elapsed_s: number;
  clientCpu: number;
  serverCpu: number;
  rssMax_bytes: number;
}

/**
 * Runs one request loop per VU (each inside runInVu, after its optional `start`), warms
 * connections and the JIT for a second, then counts completed requests for `seconds`.
 */
export async function measureLoops(options: {
  vus: VuState[];
  seconds: number;
  serverPid: number | undefined;
  start?: () => Promise<unknown>;
  /** One request; resolves true when it succeeded. */
  request: () => Promise<boolean>;
}): Promise<LoopMeasurement> {
  let requests = 0;
  let errors = 0;
  let measuring = false;
  let stop = false;
  let rssMax_bytes = 0;
  const rssTimer = setInterval(() => (rssMax_bytes = Math.max(rssMax_bytes, process.memoryUsage.rss())), 200);
  const work = options.vus.map((vu) =>
    runInVu(vu, async () => {
      await options.start?.();
      while (!stop) {
        const ok = await options.request();
        if (measuring) {
          requests++;
          if (!ok) errors++;
        }
      }
    }),
  );
  await new Promise((r) => setTimeout(r, 1000));
  measuring = true;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const serverCpu0 = processCpu_ms(options.serverPid);
  await new Promise((r) => setTimeout(r, options.seconds * 1000));
  measuring = false;
  const elapsed_s = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const serverCpu = (processCpu_ms(options.serverPid) - serverCpu0) / (elapsed_s * 1000);
  stop = true;
  await Promise.all(work);
  clearInterval(rssTimer);
  const clientCpu = (cpu.user + cpu.system) / 1e3 / (elapsed_s * 1000);
  return { requests, errors, elapsed_s, clientCpu, serverCpu, rssMax_bytes };
}

const VU_TAGS = { scenario: 'default', group: '' };

/** A VU for driving protocol modules without the engine: samples are only counted. */
export function benchVu(
  id: number,
  counter: { samples: number },
  inInit = false,
): VuState & { retire(): Promise<void> } {
  const retire: Array<() => void | Promise<void>> = [];
  return {
    idInTest: id,
    inInit,
    options: { discardResponseBodies: false, noConnectionReuse: false, tls: DEFAULT_CLIENT_TLS },
    // One object while the tags hold, as the engine's VUs do.
    tags: () => VU_TAGS,
    emit(samples: Sample[]) {
      counter.samples += samples.length;
    },
    // Made at once: the samples' cost is part of what this bench measures.
    emitLater(build, input) {
      counter.samples += build(input).length;
    },
    onRetire(fn) {
      retire.push(fn);
    },
    // Never interrupted: the bench runs whole requests.
    onInterrupt() {
      return () => undefined;
    },
    async retire() {
      for (const fn of retire) await fn();
    },
  };
}
