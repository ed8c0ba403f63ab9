/** The samples k6 emits for one HTTP request, with k6's metric names and system tags. */
import type { Sample, Tags } from '../vu-context.ts';
import type { K6HttpError } from './http-errors.ts';
import type { ExpectedStatuses } from './http-params.ts';
import type { Timings } from './http-timings.ts';

/** What one finished request (one hop of a redirect chain) contributes to the metrics. */
export interface RequestOutcome {
  vuTags: Tags;
  userTags: Tags;
  method: string;
  tagUrl: string;
  name: string;
  status: number;
  proto: string;
  /** k6's tls_version tag ("tls1.3"); empty for plain HTTP. */
  tlsVersion: string;
  error: K6HttpError | null;
  timings: Timings;
  sent_bytes: number;
  received_bytes: number;
  /** null: the script disabled the response callback, so no http_req_failed and no expected_response. */
  expected: ExpectedStatuses | null;
}

/**
 * Tag sets already built, per VU tag set (the engine keeps that object while the VU's tags hold) and
 * per user tag set (normalizeParams hands out one object per frozen params object, and one empty
 * object for requests without tags).
 */
const memo = new WeakMap<Tags, WeakMap<Tags, Map<string, Tags>>>();
const MEMO_ENTRIES = 512;

/**
 * k6's system tags for a request; the user's `name` tag wins over the URL. A request like an earlier
 * one of the same VU with the same user tag object (and no error) shares that request's tag object:
 * samples never mutate tags, and building the object is a visible part of a small request's cost.
 */
export function requestTags(o: RequestOutcome): Tags {
  if (o.error) return buildTags(o);
  let byUserTags = memo.get(o.vuTags);
  if (!byUserTags) {
    byUserTags = new WeakMap();
    memo.set(o.vuTags, byUserTags);
  }
  let byKey = byUserTags.get(o.userTags);
  if (!byKey) {
    byKey = new Map();
    byUserTags.set(o.userTags, byKey);
  }
  const expected = o.expected ? String(o.expected.matches(o.status)) : '';
  const key = `${o.method} ${o.status} ${o.proto} ${o.tlsVersion} ${expected} ${o.name} ${o.tagUrl}`;
  let tags = byKey.get(key);
  if (!tags) {
    if (byKey.size >= MEMO_ENTRIES) byKey.clear();
    tags = buildTags(o);
    byKey.set(key, tags);
  }
  return tags;
}

function buildTags(o: RequestOutcome): Tags {
  const tags: Tags = { ...o.vuTags, ...o.userTags };
  if (o.proto) tags['proto'] = o.proto;
  tags['method'] = o.method;
  tags['name'] = o.userTags['name'] ?? o.name;
  // k6 v2 tags `url` with the name too (a name tag or http.url template keeps URLs out of the labels).
  tags['url'] = tags['name'];
  tags['status'] = String(o.status);
  if (o.tlsVersion) tags['tls_version'] = o.tlsVersion;
  if (o.expected) tags['expected_response'] = String(o.expected.matches(o.status));
  if (o.error) {
    tags['error'] = o.error.message;
    tags['error_code'] = String(o.error.code);
  }
  return tags;
}

const rootTags = new WeakMap<Tags, Tags>();

/** The VU's tags with the root group (`group: ""`), one object per VU tag object. */
function outsideGroups(vuTags: Tags): Tags {
  if (!vuTags['group']) return vuTags;
  let t = rootTags.get(vuTags);
  if (t === undefined) {
    t = { ...vuTags, group: '' };
    rootTags.set(vuTags, t);
  }
  return t;
}

/** The samples for one request: http_reqs, http_req_* trends, http_req_failed, data_sent, data_received. */
export function requestSamples(o: RequestOutcome): Sample[] {
  const tags = requestTags(o);
  const t = o.timings;
  const samples: Sample[] = [
    { metric: 'http_reqs', value: 1, tags },
    { metric: 'http_req_duration', value: t.duration, tags },
    { metric: 'http_req_blocked', value: t.blocked, tags },
    { metric: 'http_req_connecting', value: t.connecting, tags },
    { metric: 'http_req_tls_handshaking', value: t.tls_handshaking, tags },
    { metric: 'http_req_sending', value: t.sending, tags },
    { metric: 'http_req_waiting', value: t.waiting, tags },
    { metric: 'http_req_receiving', value: t.receiving, tags },
  ];
  if (o.expected) {
    samples.push({ metric: 'http_req_failed', value: o.expected.matches(o.status) ? 0 : 1, tags });
  }
  // k6 counts wire bytes with the VU's tags only, not per request's, and outside any group (it sends them at
  // the iteration's end).
  const wireTags = outsideGroups(o.vuTags);
  samples.push({ metric: 'data_sent', value: o.sent_bytes, tags: wireTags });
  samples.push({ metric: 'data_received', value: o.received_bytes, tags: wireTags });
  return samples;
}
