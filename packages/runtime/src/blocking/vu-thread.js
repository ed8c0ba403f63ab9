// A blocking VU's thread (thread-vu.ts): tsx compiles the runtime's TypeScript on load, as worker.js
// does for the engine's thread; the prebuilt runtime has its own vu-thread.js, bundled (build.ts).
import { register } from 'tsx/esm/api';

register();
await import('./vu-thread-main.ts');
