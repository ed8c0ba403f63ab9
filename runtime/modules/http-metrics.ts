/** The samples k6 emits for one HTTP request, with k6's metric names and system tags. */
import type { Sample, Tags } from '../vu-context.ts';
import type { K6HttpError } from './http-errors.ts';
import type { ExpectedStatuses } from './http-params.ts';
import type { Timings } from './http-transport.ts';

/** What one finished request (one hop of a redirect chain) contributes to the metrics. */
export interface RequestOutcome {
  vuTags: Tags;
  userTags: Tags;
  method: string;
  tagUrl: string;
  name: string;
  status: number;
  proto: string;
  error: K6HttpError | null;
  timings: Timings;
  sent_bytes: number;
  received_bytes: number;
  /** null: the script disabled the response callback, so no http_req_failed and no expected_response. */
  expected: ExpectedStatuses | null;
}

/** Builds k6's system tags for a request; the user's `name` tag wins over the URL. */
export function requestTags(o: RequestOutcome): Tags {
  const tags: Tags = { ...o.vuTags, ...o.userTags };
  if (o.proto) tags['proto'] = o.proto;
  tags['method'] = o.method;
  tags['url'] = o.tagUrl;
  tags['name'] = o.userTags['name'] ?? o.name;
  tags['status'] = String(o.status);
  if (o.expected) tags['expected_response'] = String(o.expected.matches(o.status));
  if (o.error) {
    tags['error'] = o.error.message;
    tags['error_code'] = String(o.error.code);
  }
  return tags;
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
  // k6 counts wire bytes per connection with the VU's tags only, not per request's tags.
  samples.push({ metric: 'data_sent', value: o.sent_bytes, tags: o.vuTags });
  samples.push({ metric: 'data_received', value: o.received_bytes, tags: o.vuTags });
  return samples;
}
