// A k6 module the Node runtime does not implement: fails at load time.
import { chromium } from 'k6/browser';
export default function () {
  chromium.launch();
}
