/** Go's http.StatusText, which its HTTP/2 client puts after the code (HTTP/2 carries no reason phrase). */
import { STATUS_CODES } from 'node:http';

/** Where Go's text differs from Node's STATUS_CODES. */
const GO_TEXT: Record<number, string> = {
  413: 'Request Entity Too Large',
  414: 'Request URI Too Long',
  416: 'Requested Range Not Satisfiable',
  418: "I'm a teapot",
};

/** Go's status text for a code ("" for an unknown one). */
export function goStatusText(status: number): string {
  return GO_TEXT[status] ?? STATUS_CODES[status] ?? '';
}
