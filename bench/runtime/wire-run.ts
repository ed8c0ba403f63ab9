/**
 * One run of a benchmark script by the runtime's engine in this process, on the wire path named by
 * --wire (own: the runtime's unary gRPC connection; library: grpc-js), printing one JSON
 * line: requests, bad responses, CPU of this process during the scenarios phase, and that phase's length.
 *   node --import tsx bench/runtime/wire-run.ts --wire own|library --script FILE --vus N --duration 8s -e K=V ...
 * wire-vs-library.ts runs it; the switch is read here only, never by a run of the tool.
 */
import { parseArgs } from 'node:util';
import { runTest } from '@k6-triton/runtime';
import { setLogSink } from '../../packages/runtime/src/log.ts';
import { setWirePath } from '../../packages/runtime/src/transport/wire-choice.ts';

const { values } = parseArgs({
  options: {
    wire: { type: 'string', default: 'own' },
    script: { type: 'string' },
    vus: { type: 'string', default: '1' },
    duration: { type: 'string', default: '8s' },
    env: { type: 'string', short: 'e', multiple: true, default: [] },
  },
});
if (values.wire !== 'own' && values.wire !== 'library')
  throw new Error('invalid --wire; expected own|library');
if (!values.script) throw new Error('--script is required');
setWirePath(values.wire);
const env = Object.fromEntries(
  values.env!.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
);
let log = '';
setLogSink((line) => {
  log += line;
});
// CPU and time of the scenarios phase only: script load and VU init are the same on both paths and
// would dilute the difference at low rates.
let cpu0 = process.cpuUsage();
let cpu = { user: 0, system: 0 };
let t0 = performance.now();
let run_ms = 0;
const result = await runTest({
  script: values.script,
  env,
  includeSystemEnv: false,
  overrides: { vus: Number(values.vus), duration: values.duration! },
  quiet: true,
  noSummary: true,
  stdout: () => undefined,
  stderr: (s) => {
    log += s;
  },
  control: {
    phase(phase) {
      if (phase === 'scenarios') {
        cpu0 = process.cpuUsage();
        t0 = performance.now();
      } else if ((phase === 'teardown' || phase === 'summary') && run_ms === 0) {
        cpu = process.cpuUsage(cpu0);
        run_ms = performance.now() - t0;
      }
    },
    onSignal: null,
    onInterrupted: null,
  },
});
const metrics = result.summaryData?.metrics ?? {};
const requests = metrics['iterations']?.values['count'] ?? 0;
if (result.exitCode !== 0 || requests === 0) process.stderr.write(log.slice(-2000));
console.log(
  JSON.stringify({
    exitCode: result.exitCode,
    requests,
    bad: metrics['bad_responses']?.values['count'] ?? 0,
    cpu_us: cpu.user + cpu.system,
    run_ms,
  }),
);
process.exit(0);
