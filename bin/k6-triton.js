#!/usr/bin/env node
// The package's command line. Sources are TypeScript; tsx compiles them on load so
// that a fresh clone needs no build step before its first command.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../cli/main.ts');
process.exitCode = await main(process.argv);
