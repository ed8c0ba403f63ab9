/** `k6/timers`: setTimeout, clearTimeout, setInterval, clearInterval; callbacks keep their VU context. */
export const setTimeout = globalThis.setTimeout;
export const clearTimeout = globalThis.clearTimeout;
export const setInterval = globalThis.setInterval;
export const clearInterval = globalThis.clearInterval;

export default { setTimeout, clearTimeout, setInterval, clearInterval };
