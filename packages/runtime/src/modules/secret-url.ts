/**
 * k6's `url` secret source (`--secret-source url=urlTemplate=https://vault/{key},headers.Authorization=…`):
 * each get(key) requests the template with the key in it and returns the body, or the string a gjson path
 * (`responsePath`) picks from it. Config as k6 layers it: defaults < K6_SECRET_SOURCE_URL_* < a JSON file
 * (`config=path`) < inline keys; requests are rate-limited (a token bucket) and retried on network errors,
 * 5xx and 429 with k6's backoff (backoff^attempt seconds, whole seconds, plus up to 1 s of jitter).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseDuration_ms } from '@k6-triton/lib/duration.ts';
import { selectPath } from './http-response.ts';

/** The source's settings (durations in ms). */
export interface UrlSourceConfig {
  urlTemplate: string;
  headers: Record<string, string>;
  method: string;
  responsePath: string;
  requestsPerMinuteLimit: number;
  requestsBurst: number;
  timeout_ms: number;
  maxRetries: number;
  retryBackoff_ms: number;
}

const DEFAULTS: UrlSourceConfig = {
  urlTemplate: '',
  headers: {},
  method: 'GET',
  responsePath: '',
  requestsPerMinuteLimit: 300,
  requestsBurst: 10,
  timeout_ms: 30_000,
  maxRetries: 3,
  retryBackoff_ms: 1_000,
};

/** k6 caps a secret's response at 24 KiB. */
const MAX_SECRET_BYTES = 24 * 1024;

type Partial_ = Partial<UrlSourceConfig>;

function int(value: unknown, what: string): number {
  const n = typeof value === 'number' ? value : Number.parseInt(String(value), 10);
  if (!Number.isInteger(n)) throw new Error(`invalid ${what}: expected integer`);
  return n;
}

function duration(value: unknown, what: string): number {
  try {
    return parseDuration_ms(value, what);
  } catch {
    throw new Error(`invalid ${what}: time: invalid duration ${JSON.stringify(String(value))}`);
  }
}

/** One inline or file key into the config, k6's names; headers.X sets a header. */
function setKey(cfg: Partial_, key: string, value: unknown): void {
  switch (key) {
    case 'urlTemplate':
      cfg.urlTemplate = String(value);
      return;
    case 'method':
      cfg.method = String(value);
      return;
    case 'responsePath':
      cfg.responsePath = String(value);
      return;
    case 'timeout':
      cfg.timeout_ms = duration(value, 'timeout');
      return;
    case 'retryBackoff':
      cfg.retryBackoff_ms = duration(value, 'retryBackoff');
      return;
    case 'requestsPerMinuteLimit':
    case 'requestsBurst':
    case 'maxRetries':
      cfg[key] = int(value, key);
      return;
    default:
      if (!key.startsWith('headers.')) throw new Error(`unknown configuration key: ${JSON.stringify(key)}`);
      cfg.headers = { ...cfg.headers, [key.slice('headers.'.length)]: String(value) };
  }
}

function fromEnv(env: NodeJS.ProcessEnv): Partial_ {
  const cfg: Partial_ = {};
  const keys: Record<string, string> = {
    URL_TEMPLATE: 'urlTemplate',
    METHOD: 'method',
    RESPONSE_PATH: 'responsePath',
    TIMEOUT: 'timeout',
    MAX_RETRIES: 'maxRetries',
    RETRY_BACKOFF: 'retryBackoff',
    REQUESTS_PER_MINUTE_LIMIT: 'requestsPerMinuteLimit',
    REQUESTS_BURST: 'requestsBurst',
  };
  for (const [suffix, key] of Object.entries(keys)) {
    const v = env[`K6_SECRET_SOURCE_URL_${suffix}`];
    if (v) setKey(cfg, key, v);
  }
  for (const [name, v] of Object.entries(env))
    if (name.startsWith('K6_SECRET_SOURCE_URL_HEADER_') && v !== undefined)
      setKey(cfg, `headers.${name.slice('K6_SECRET_SOURCE_URL_HEADER_'.length)}`, v);
  return cfg;
}

function fromFile(path: string, cwd: string): Partial_ {
  let text: string;
  try {
    text = readFileSync(resolve(cwd, path), 'utf8');
  } catch (err) {
    throw new Error(
      `failed to open config file: open ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (err as Error).message}`,
    );
  }
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch (err) {
    throw new Error(`failed to parse JSON config: ${(err as Error).message}`);
  }
  const cfg: Partial_ = {};
  for (const [k, v] of Object.entries(json)) {
    if (k === 'headers')
      cfg.headers = Object.fromEntries(Object.entries(v as object).map(([h, x]) => [h, String(x)]));
    else if (v !== null) setKey(cfg, k, v);
  }
  return cfg;
}

/** The source's config from its `--secret-source url=…` text, the environment and a config file; k6's errors. */
export function urlSourceConfig(arg: string, cwd: string, env: NodeJS.ProcessEnv): UrlSourceConfig {
  try {
    let file: Partial_ = {};
    const inline: Partial_ = {};
    if (arg !== '')
      for (const part of arg.split(',')) {
        const eq = part.indexOf('=');
        if (eq < 0) throw new Error(`invalid config format ${JSON.stringify(part)}, expected key=value`);
        const [key, value] = [part.slice(0, eq), part.slice(eq + 1)];
        if (key === 'config') file = fromFile(value, cwd);
        else setKey(inline, key, value);
      }
    const cfg: UrlSourceConfig = { ...DEFAULTS, ...fromEnv(env), ...file, ...inline };
    validate(cfg);
    return cfg;
  } catch (err) {
    throw new Error(`missing or invalid config: ${(err as Error).message}`);
  }
}

function validate(c: UrlSourceConfig): void {
  if (c.urlTemplate === '') throw new Error('urlTemplate is required');
  if (!c.urlTemplate.includes('{key}')) throw new Error('urlTemplate must contain {key} placeholder');
  if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(c.urlTemplate))
    throw new Error('urlTemplate must be an absolute URL with a scheme (e.g., https://...)');
  if (c.timeout_ms <= 0) throw new Error('timeout must be greater than 0');
  if (c.requestsPerMinuteLimit <= 0) throw new Error('requestsPerMinuteLimit must be greater than 0');
  if (c.requestsBurst <= 0) throw new Error('requestsBurst must be greater than 0');
  if (c.maxRetries < 0) throw new Error('maxRetries must be non-negative');
  if (c.retryBackoff_ms <= 0) throw new Error('retryBackoff must be greater than 0');
}

/** gjson's type names, for k6's "not a string" error. */
function gjsonType(v: unknown): string {
  if (v === null) return 'Null';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') return 'Number';
  return 'JSON';
}

/** One failed attempt, and whether k6 would try again. */
class Attempt extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

/** The url secret source: get(key) fetches the secret. */
export class UrlSecretSource {
  #tokens: number;
  #last = Date.now();

  constructor(readonly config: UrlSourceConfig) {
    this.#tokens = config.requestsBurst;
  }

  /** Waits for a token of the rate limiter (requestsPerMinuteLimit, bursts of requestsBurst). */
  async #take(): Promise<void> {
    const every_ms = 60_000 / this.config.requestsPerMinuteLimit;
    for (;;) {
      const now = Date.now();
      this.#tokens = Math.min(this.config.requestsBurst, this.#tokens + (now - this.#last) / every_ms);
      this.#last = now;
      if (this.#tokens >= 1) {
        this.#tokens -= 1;
        return;
      }
      await sleep(Math.ceil((1 - this.#tokens) * every_ms));
    }
  }

  async #once(key: string): Promise<string> {
    const c = this.config;
    const url = c.urlTemplate.replaceAll('{key}', key);
    let res: Response;
    try {
      res = await fetch(url, {
        method: c.method,
        headers: c.headers,
        signal: AbortSignal.timeout(c.timeout_ms),
      });
    } catch (err) {
      const cause = (err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message;
      throw new Attempt(
        `failed to get secret: ${c.method[0]}${c.method.slice(1).toLowerCase()} ${JSON.stringify(url)}: ${cause}`,
        true,
      );
    }
    if (res.status !== 200) {
      await res.body?.cancel();
      throw new Attempt(
        `status code ${res.status}: failed to get secret`,
        res.status >= 500 || res.status === 429,
      );
    }
    const body = Buffer.from(await res.arrayBuffer());
    if (body.length > MAX_SECRET_BYTES)
      throw new Attempt(
        `failed to extract secret: secret response exceeds maximum size of ${MAX_SECRET_BYTES} bytes`,
        false,
      );
    if (c.responsePath === '') return body.toString('utf8');
    let value: unknown;
    try {
      value = selectPath(JSON.parse(body.toString('utf8')), c.responsePath);
    } catch {
      value = undefined;
    }
    if (value === undefined)
      throw new Attempt(
        `failed to extract secret: path ${JSON.stringify(c.responsePath)} not found in response`,
        false,
      );
    if (typeof value !== 'string')
      throw new Attempt(
        `failed to extract secret: secret value at path ${JSON.stringify(c.responsePath)} is not a string (got ${gjsonType(value)})`,
        false,
      );
    return value;
  }

  /** The secret of `key`; rejects with the last attempt's error text. */
  async get(key: string): Promise<string> {
    await this.#take();
    const backoff_s = this.config.retryBackoff_ms / 1000;
    let last: Attempt | null = null;
    for (let i = 0; i <= this.config.maxRetries; i++) {
      if (i > 0) await sleep(Math.trunc(backoff_s ** i) * 1000 + Math.floor(Math.random() * 1000));
      try {
        return await this.#once(key);
      } catch (err) {
        last = err as Attempt;
        if (!last.retryable) break;
      }
    }
    throw new Error(last?.message ?? 'failed to get secret');
  }
}
