// The floor for the Node runtime: the same POST through http.asyncRequest (no blocking calls there).
import http from 'k6/http';
import { mark, options as base, request } from './common.js';

export const options = base('http_req_duration');
const { url, body, params } = request();

export async function warm() {
  await http.asyncRequest('POST', url, body, params);
}

export async function measure() {
  mark();
  await http.asyncRequest('POST', url, body, params);
}
