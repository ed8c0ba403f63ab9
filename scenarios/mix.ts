/**
 * A model mix: several catalog models in one k6 test, one set of scenarios per model (see
 * scenarios/kit/mix-test.ts). MIX_PLAN names the plan file `k6-triton bench --mix` writes; each slot's
 * functions run one model. Run: make bench-mix, or k6-triton bench --mix mixes/seed-trio.json.
 */
import { MIX_SLOTS, mixTest } from './kit/mix-test.ts';

if (!__ENV.MIX_PLAN) throw new Error('MIX_PLAN is not set; run a mix with k6-triton bench --mix <file>');
const mix = mixTest(open(__ENV.MIX_PLAN));
const slots = Array.from({ length: MIX_SLOTS }, (_, i) => mix.slot(i));

export const { options, setup, handleSummary } = mix;
// k6 calls exec functions by their exported names: one name per slot and function.
export const [warmup_0, warmup_1, warmup_2, warmup_3, warmup_4, warmup_5, warmup_6, warmup_7] = slots.map(
  (s) => s.warmup,
);
export const [infer_0, infer_1, infer_2, infer_3, infer_4, infer_5, infer_6, infer_7] = slots.map(
  (s) => s.infer,
);
export const [stats_0, stats_1, stats_2, stats_3, stats_4, stats_5, stats_6, stats_7] = slots.map(
  (s) => s.stats,
);
