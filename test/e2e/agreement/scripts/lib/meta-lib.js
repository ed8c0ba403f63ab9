// A module in another directory: its import.meta.resolve() resolves against its own URL.
export const fromLib = import.meta.resolve('./beside-lib.json');
