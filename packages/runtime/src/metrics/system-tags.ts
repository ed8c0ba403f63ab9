/**
 * k6's `systemTags` option: which of the tags k6 itself puts on samples (url, method, status, scenario,
 * ...) are kept. Unset, k6 keeps its default set; set, every other system tag is left off, which
 * also leaves it out of sub-metric matching (a `{url:...}` threshold then matches nothing).
 */
import type { Tags } from '../vu-context.ts';

/** k6's system tags, in k6's order; the last four are off by default. */
export const K6_SYSTEM_TAGS = [
  'proto',
  'subproto',
  'status',
  'method',
  'url',
  'name',
  'group',
  'check',
  'error',
  'error_code',
  'tls_version',
  'scenario',
  'service',
  'expected_response',
  'iter',
  'vu',
  'ocsp_status',
  'ip',
] as const;

/** Reads options.systemTags: undefined for k6's default set, else the validated list. */
export function parseSystemTags(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) {
    throw new Error(
      `invalid option systemTags: expected an array of tag names, got ${JSON.stringify(value)}`,
    );
  }
  const known: readonly string[] = K6_SYSTEM_TAGS;
  for (const tag of value) {
    if (typeof tag !== 'string' || !known.includes(tag)) {
      throw new Error(
        `invalid option systemTags: ${JSON.stringify(tag)} is not a k6 system tag (one of ${K6_SYSTEM_TAGS.join(', ')})`,
      );
    }
  }
  return value as string[];
}

/**
 * The function that drops the system tags `enabled` leaves out, or null when nothing is dropped.
 * Tag objects are shared between samples (a request's, a VU's), so each is filtered once. Unlike
 * k6, a user tag that has a disabled system tag's name (say `name` set in params.tags) is dropped too.
 */
export function systemTagFilter(enabled: readonly string[] | undefined): ((tags: Tags) => Tags) | null {
  if (enabled === undefined) return null;
  const dropped = K6_SYSTEM_TAGS.filter((tag) => !enabled.includes(tag));
  const filtered = new WeakMap<Tags, Tags>();
  return (tags) => {
    let kept = filtered.get(tags);
    if (kept === undefined) {
      kept = tags;
      for (const tag of dropped) {
        if (tag in kept) {
          if (kept === tags) kept = { ...tags };
          delete kept[tag];
        }
      }
      filtered.set(tags, kept);
    }
    return kept;
  };
}
