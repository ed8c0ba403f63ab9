/**
 * k6 keeps user names out of archives: a local path under a user's folder is stored (and, running an
 * archive, looked up) with the user's folder named `nobody` (k6's NormalizeAndAnonymizePath).
 */

/** k6's anonymizing of a local path in an archive: the user's folder under /home or /Users becomes `nobody`. */
export function anonymizePath(path: string): string {
  return path.replace(/^(\/[a-zA-Z])?\/(Users|home|Documents and Settings)\/[^/]+/i, '$1/$2/nobody');
}
