// build/run.js's entry (build.ts buildRuntime): `k6-triton run` alone, as a process's top level.
import { runMain } from './run-main.ts';

process.exitCode = await runMain(process.argv);
