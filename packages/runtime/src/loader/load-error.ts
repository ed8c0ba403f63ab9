/** Thrown when a script cannot be loaded (k6 exits with 107 for script errors). */
export class ScriptLoadError extends Error {}
