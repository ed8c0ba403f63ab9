// A name the runtime's k6 module does not export: fails at load time.
import { nonexistentThing } from 'k6/metrics';
export default function () {
  nonexistentThing();
}
