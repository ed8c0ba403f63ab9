// A k6 script that uses the synchronous http.get: the Node runtime refuses it, naming asyncRequest.
import { get } from 'k6/http';

export default function () {
  get('http://127.0.0.1:1/');
}
