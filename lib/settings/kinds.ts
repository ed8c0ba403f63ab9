/**
 * One parser per kind of setting value (whole number, number, duration, list of levels, token length, choice,
 * switch, text), each throwing one line that names the setting and the fix. The schema (schema.ts) gives each
 * setting its kind. Runs inside k6: no Node imports.
 */
import { type Arrivals, parseArrivals } from '../load/arrivals.ts';
import { parseDuration_s, parseLevels, parsePositiveNumber } from '../load/parse.ts';

/** A kind of value: its placeholder in --help, the forms it takes (docs), and its parser. */
export interface Kind<T> {
  /** The flag's argument in --help (`<n>`); undefined for a switch, which takes none. */
  placeholder?: string;
  /** The forms it takes, for the docs table. */
  form: string;
  /** A choice's values (--help lists them and commander checks them). */
  values?: readonly string[];
  parse(name: string, raw: string): T;
}

/** A whole number >= min; `hint` says what the numbers mean, after the fix. */
export function int(min: number, hint?: string): Kind<number> {
  return {
    placeholder: 'n',
    form: `whole number >= ${min}`,
    parse(name, raw) {
      const text = raw.trim();
      const n = Number(text);
      if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(n) || n < min)
        throw new Error(
          `invalid ${name}="${raw}"; expected a whole number >= ${min}${hint ? ` (${hint})` : ''}`,
        );
      return n;
    },
  };
}

/** A number greater than 0 (STABILITY=10, P95_MS=20); `example` is the fix's. */
export function positive(example: string, placeholder = 'n'): Kind<number> {
  return { placeholder, form: 'number > 0', parse: (name, raw) => parsePositiveNumber(name, raw, example) };
}

/** A percentage from 0 to 100. */
export const percent: Kind<number> = {
  placeholder: 'pct',
  form: 'percent, 0 to 100',
  parse(name, raw) {
    const n = Number(raw.trim());
    if (raw.trim() === '' || !Number.isFinite(n) || n < 0 || n > 100)
      throw new Error(`invalid ${name}="${raw}"; expected a percentage from 0 to 100`);
    return n;
  },
};

/** Seconds: a bare number (AIPerf's form, 0.5) or a duration with a unit (500ms); 0 allowed. */
export const seconds: Kind<number> = {
  placeholder: 's',
  form: 'seconds (0.5) or a duration (500ms)',
  parse(name, raw) {
    const text = raw.trim();
    if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
    return parseDuration_s(name, text, { allowZero: true });
  },
};

/** How prompts are salted: 'random' per run, a fixed whole-number salt, or 'off'. */
export type PromptSalt = 'random' | 'off' | number;

/** PROMPT_SALT: random, off, or a whole number >= 0. */
export const promptSalt: Kind<PromptSalt> = {
  placeholder: 'salt',
  form: 'random | off | whole number',
  parse(name, raw) {
    const text = raw.trim().toLowerCase();
    if (text === 'random' || text === 'off') return text;
    if (/^\d+$/.test(text) && Number.isSafeInteger(Number(text))) return Number(text);
    throw new Error(`invalid ${name}="${raw}"; expected random, off or a whole number >= 0`);
  },
};

/** A duration with a unit, in seconds (k6's grammar: 5s, 500ms, 1m30s). */
export function duration(options: { allowZero?: boolean } = {}): Kind<number> {
  return {
    placeholder: 'd',
    form: 'duration: 5s, 500ms, 1m30s',
    parse: (name, raw) => parseDuration_s(name, raw, options),
  };
}

/** Levels: perf_analyzer's start:end[:step] or a list 1,2,4, ascending. */
export function levels(integer: boolean): Kind<number[]> {
  return {
    placeholder: 'range',
    form: 'start:end[:step] or a list 1,2,4',
    parse: (name, raw) => parseLevels(name, raw, { integer }),
  };
}

/** A ramp: from:to, whole numbers >= 1 that differ (k6's ramping-vus start and target VUs, or arrival rates). */
export function ramp(unit: string, example: string): Kind<{ from: number; to: number }> {
  return {
    placeholder: 'from:to',
    form: 'from:to, whole numbers >= 1 that differ',
    parse(name, raw) {
      const parts = raw.trim().split(':');
      const [from, to] = parts.map(Number);
      const whole = (n: number | undefined) => n !== undefined && Number.isSafeInteger(n) && n >= 1;
      if (parts.length !== 2 || !whole(from) || !whole(to) || from === to)
        throw new Error(
          `invalid ${name}="${raw}"; expected from:to with whole numbers >= 1 that differ (${unit}), e.g. ${example}`,
        );
      return { from: from!, to: to! };
    },
  };
}

/** A length distribution: normal (rounded, at least 1) or uniform over whole numbers min..max. */
export type LengthSpec = { mean: number; stddev: number } | { min: number; max: number };

/** Whether a length spec always gives the same length. */
export function fixedLength(spec: LengthSpec): number | undefined {
  if ('min' in spec) return spec.min === spec.max ? spec.min : undefined;
  return spec.stddev === 0 ? spec.mean : undefined;
}

/**
 * A token length: "200" (fixed), "200,20" (normal, mean 200, stddev 20) or "100:300" (uniform from 100 to
 * 300), genai-perf's synthetic lengths.
 */
export const tokenLength: Kind<LengthSpec> = {
  placeholder: 'len',
  form: 'n, mean,stddev or min:max',
  parse(name, raw) {
    const value = raw.trim();
    const n = (s: string) => (/^\d+(\.\d+)?$/.test(s.trim()) ? Number(s) : Number.NaN);
    const range = value.split(':');
    const normal = value.split(',');
    let spec: LengthSpec | undefined;
    if (range.length === 2) spec = { min: n(range[0]!), max: n(range[1]!) };
    else if (normal.length === 2) spec = { mean: n(normal[0]!), stddev: n(normal[1]!) };
    else if (normal.length === 1) spec = { mean: n(value), stddev: 0 };
    const ok =
      spec &&
      ('min' in spec
        ? Number.isInteger(spec.min) && Number.isInteger(spec.max) && spec.min >= 1 && spec.max >= spec.min
        : spec.mean >= 1 && spec.stddev >= 0);
    if (!ok)
      throw new Error(
        `invalid ${name}="${raw}"; expected a length (200), mean,stddev (200,20) or a range min:max (100:300), lengths >= 1`,
      );
    return spec!;
  },
};

/** One of a fixed set of words. */
export function choice<T extends string>(values: readonly T[], placeholder = 'name'): Kind<T> {
  return {
    placeholder,
    form: values.join(' | '),
    values,
    parse(name, raw) {
      const value = raw.trim();
      if (!(values as readonly string[]).includes(value))
        throw new Error(`invalid ${name}="${raw}"; expected one of: ${values.join(', ')}`);
      return value as T;
    },
  };
}

/** A switch: true, 1, yes or on turns it on, false, 0, no or off off; a flag without an argument. */
export const bool: Kind<boolean> = {
  form: 'true or false',
  parse(name, raw) {
    const value = raw.trim().toLowerCase();
    if (/^(1|true|yes|on)$/.test(value)) return true;
    if (/^(0|false|no|off)$/.test(value)) return false;
    throw new Error(`${name}="${raw}" is invalid: expected true or false`);
  },
};

/** Free text (a URL, a name, a file path), checked where it is used. */
export function text(placeholder: string, form = placeholder): Kind<string> {
  return { placeholder, form, parse: (_name, raw) => raw.trim() };
}

/** An open-loop arrival process: constant, poisson or gamma:<k>. */
export const arrivals: Kind<Arrivals> = {
  placeholder: 'process',
  form: 'constant | poisson | gamma:<k>',
  parse: (name, raw) => parseArrivals(raw, name),
};

/** Correlation ids: start:end (end excluded) or start alone (open-ended). */
export const idRange: Kind<{ start: number; end?: number }> = {
  placeholder: 'start:end',
  form: 'start:end (end excluded) or start',
  parse(name, raw) {
    const [startText, endText, extra] = raw.split(':');
    const start = Number(startText);
    const end = endText === undefined || endText === '' ? undefined : Number(endText);
    const bad =
      extra !== undefined ||
      !Number.isSafeInteger(start) ||
      start < 1 ||
      (end !== undefined && (!Number.isSafeInteger(end) || end <= start));
    if (bad)
      throw new Error(
        `invalid ${name}="${raw}"; expected start:end with 1 <= start < end (end excluded), e.g. 1:1000`,
      );
    return end === undefined ? { start } : { start, end };
  },
};
