// The floor for real k6: a blocking POST of the same binary KServe request, nothing else. The only
// addition to five lines is the window mark the fidelity bench lines its CPU samples up with.
import http from 'k6/http';
import { mark, options as base, request } from './common.js';

export const options = base('http_req_duration');
const { url, body, params } = request();

export function warm() {
  http.post(url, body, params);
}

export function measure() {
  mark();
  http.post(url, body, params);
}
