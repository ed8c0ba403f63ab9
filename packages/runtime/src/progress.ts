/** What a run prints while it lasts: k6's execution banner and, on a terminal only, a progress line. */
import { formatDuration_ms } from '@k6-triton/lib/duration.ts';
import type { ScenarioConfig } from './options/scenarios.ts';
import type { TestRun } from './run-state.ts';

function describe(c: ScenarioConfig): string {
  const gs = `gracefulStop: ${formatDuration_ms(c.gracefulStop_ms)}`;
  const stages = formatDuration_ms(c.stages.reduce((a, s) => a + s.duration_ms, 0));
  const perS = (r: number) => ((r * 1000) / c.timeUnit_ms).toFixed(2);
  switch (c.executor) {
    case 'shared-iterations':
      return `${c.iterations} iterations shared among ${c.vus} VUs (maxDuration: ${formatDuration_ms(c.maxDuration_ms)}, ${gs})`;
    case 'per-vu-iterations':
      return `${c.iterations} iterations for each of ${c.vus} VUs (maxDuration: ${formatDuration_ms(c.maxDuration_ms)}, ${gs})`;
    case 'constant-vus':
      return `${c.vus} looping VUs for ${formatDuration_ms(c.duration_ms)} (${gs})`;
    case 'ramping-vus':
      return `Up to ${Math.max(c.startVUs, ...c.stages.map((s) => s.target))} looping VUs for ${stages} over ${c.stages.length} stages (gracefulRampDown: ${formatDuration_ms(c.gracefulRampDown_ms)}, ${gs})`;
    case 'constant-arrival-rate':
      return `${perS(c.rate)} iterations/s for ${formatDuration_ms(c.duration_ms)} (maxVUs: ${c.preAllocatedVUs}-${c.maxVUs}, ${gs})`;
    case 'ramping-arrival-rate':
      return `Up to ${perS(Math.max(c.startRate, ...c.stages.map((s) => s.target)))} iterations/s for ${stages} over ${c.stages.length} stages (maxVUs: ${c.preAllocatedVUs}-${c.maxVUs}, ${gs})`;
  }
}

/** k6's execution banner (without the logo). */
export function banner(opts: {
  script: string;
  outputs: readonly string[];
  scenarios: readonly ScenarioConfig[];
  maxVus: number;
  maxDuration_ms: number;
  /** The VU mode when it is not the default event loop (blocking/mode.ts). */
  vuMode?: string;
}): string {
  const n = opts.scenarios.length;
  const lines = [
    '',
    `     execution: local (k6-triton node runtime)`,
    `        script: ${opts.script}`,
    `        output: ${opts.outputs.length ? opts.outputs.join(', ') : '-'}`,
    ...(opts.vuMode ? [`       vu mode: ${opts.vuMode}`] : []),
    '',
    `     scenarios: (100.00%) ${n} scenario${n === 1 ? '' : 's'}, ${opts.maxVus} max VUs, ${formatDuration_ms(opts.maxDuration_ms)} max duration (incl. graceful stop):`,
  ];
  for (const c of opts.scenarios) {
    const extra = [
      c.exec !== 'default' ? `exec: ${c.exec}` : '',
      c.startTime_ms ? `startTime: ${formatDuration_ms(c.startTime_ms)}` : '',
    ]
      .filter(Boolean)
      .join(', ');
    lines.push(`              * ${c.name}: ${describe(c)}${extra ? `, ${extra}` : ''}`);
  }
  return `${lines.join('\n')}\n\n`;
}

function clock(ms: number): string {
  const m = Math.floor(ms / 60_000);
  const s = (ms % 60_000) / 1000;
  return `${String(m).padStart(2, '0')}m${s.toFixed(1).padStart(4, '0')}s`;
}

/** The progress line k6 keeps updating: running time, VUs and iterations. */
export function progressLine(run: TestRun, maxVus: number): string {
  const elapsed = run.start_ms ? performance.now() - run.start_ms : 0;
  return `running (${clock(elapsed)}), ${run.vusActive}/${maxVus} VUs, ${run.iterationsCompleted} complete and ${run.iterationsInterrupted} interrupted iterations`;
}

/** Starts redrawing the progress line on `stream` (a TTY) every 200 ms; returns the stop function. */
export function startProgress(
  run: TestRun,
  maxVus: () => number,
  stream: { write(s: string): unknown },
): () => void {
  const draw = () => stream.write(`\r\x1b[2K${progressLine(run, maxVus())}`);
  const t = setInterval(draw, 200);
  t.unref();
  return () => {
    clearInterval(t);
    draw();
    stream.write('\n');
  };
}
