// The thread of a supervised run (supervisor.ts): tsx compiles the runtime's TypeScript on load,
// as bin/k6-triton.js does for the main thread (module hooks are not inherited by workers).
import { register } from 'tsx/esm/api';

register();
await import('./worker-main.ts');
