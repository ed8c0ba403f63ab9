// A k6 module the Node runtime does not implement: fails at load time.
import { parseHTML } from 'k6/html';
export default function () {
  parseHTML('<p></p>');
}
