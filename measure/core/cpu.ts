/**
 * The load generator's CPU, sampled from /proc while a run goes on, so each level can say how much of a
 * core the generator used (a saturated generator measures itself, not the server). Linux only: elsewhere
 * there are no samples and the report says "n/a".
 */
import { readFileSync } from 'node:fs';

/** One reading: wall time (epoch ms) and the process's user+system CPU so far (seconds). */
export interface CpuSample {
  t_ms: number;
  cpu_s: number;
}

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ; 100 on Linux x86 and arm). */
const TICKS_PER_S = 100;

/** user+system CPU seconds of a process, or undefined when /proc cannot tell. */
export function processCpu_s(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at state; utime and stime are 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S;
  } catch {
    return undefined;
  }
}

/** Samples a process every `interval_ms` until stop(); returns what it saw. */
export function sampleCpu(pid: number, interval_ms = 200): { stop(): CpuSample[] } {
  const samples: CpuSample[] = [];
  const take = () => {
    const cpu_s = processCpu_s(pid);
    if (cpu_s !== undefined) samples.push({ t_ms: Date.now(), cpu_s });
  };
  take();
  const timer = setInterval(take, interval_ms);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      return samples;
    },
  };
}

/** CPU share (percent of one core) between two moments, from the samples nearest inside them. */
export function cpuShare_pct(
  samples: readonly CpuSample[],
  from_ms: number,
  to_ms: number,
): number | undefined {
  const inside = samples.filter((s) => s.t_ms >= from_ms && s.t_ms <= to_ms);
  if (inside.length < 2) return undefined;
  const first = inside[0]!;
  const last = inside[inside.length - 1]!;
  const wall_s = (last.t_ms - first.t_ms) / 1000;
  return wall_s > 0 ? ((last.cpu_s - first.cpu_s) / wall_s) * 100 : undefined;
}
