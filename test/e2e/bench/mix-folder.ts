/** Reading the one run folder a `bench --mix` wrote, for the mix tests on either server. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';

/** A model's row of the mix's summary.json. */
export interface MixModel {
  id: string;
  load: { mode: string; level: number };
  verdict_ok: boolean;
  verdict: 'met' | 'missed' | 'not_measured' | 'inconclusive';
  requests_per_s: number;
  result?: {
    name: string;
    requests: number;
    errors: number;
    server?: { request_count: number };
    server_metrics?: { scrapes: number };
    budgets: { expr: string; ok: boolean }[];
    latency_us: { p95: number; min: number; max: number };
  };
}

/** The single run folder under `<results>/mix-<name>/` (a bench's, or a capacity search's). */
export function mixRunFolder(results: string, name: string, why: string): string {
  const runs = readdirSync(join(results, `mix-${name}`));
  expect(runs, why).toHaveLength(1);
  return join(results, `mix-${name}`, runs[0]!);
}

/** A measured mix's folder: its summary.json and model rows. */
export function readMixFolder(dir: string) {
  const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
  return { dir, summary, models: summary.models as MixModel[] };
}

/** The single bench run under `<results>/mix-<name>/`: its folder, summary.json and model rows. */
export function readMixRun(results: string, name: string, why: string) {
  return readMixFolder(mixRunFolder(results, name, why));
}
