/** A stand-in for the engine's VU state: records samples and retire callbacks, for module tests. */
import { DEFAULT_CLIENT_TLS } from '../src/transport/tls-client.ts';
import type { ModuleOptions, Sample, Tags, VuState } from '../src/vu-context.ts';

/** A VuState that records what modules emit. */
export interface FakeVu extends VuState {
  samples: Sample[];
  inInit: boolean;
  retire(): Promise<void>;
}

/** Creates a fake VU with test tags; options override the module options. */
export function fakeVu(opts: Partial<ModuleOptions> & { idInTest?: number; tags?: Tags } = {}): FakeVu {
  const retireFns: Array<() => void | Promise<void>> = [];
  // One object while the tags hold, as the engine's VUs do.
  const tags = { scenario: 'default', group: '', ...opts.tags };
  const vu: FakeVu = {
    idInTest: opts.idInTest ?? 1,
    inInit: false,
    samples: [],
    options: {
      discardResponseBodies: opts.discardResponseBodies ?? false,
      noConnectionReuse: opts.noConnectionReuse ?? false,
      tls: opts.tls ?? DEFAULT_CLIENT_TLS,
    },
    tags: () => tags,
    emit(samples) {
      vu.samples.push(...samples);
    },
    emitLater(build, input) {
      vu.samples.push(...build(input));
    },
    onRetire(fn) {
      retireFns.push(fn);
    },
    onInterrupt() {
      return () => undefined;
    },
    async retire() {
      for (const fn of retireFns.splice(0)) await fn();
    },
  };
  return vu;
}

/** Samples of one metric. */
export function samplesOf(vu: FakeVu, metric: string): Sample[] {
  return vu.samples.filter((s) => s.metric === metric);
}
