/** What k6 throws for a Go error: name "GoError" (fail(), k6/experimental/csv, ...). */
export class GoError extends Error {
  override name = 'GoError';
}
