/** The k6/http functions that are synchronous in k6: the module's refusing forms and the loader's transform share this list. */
export const SYNC_HTTP_FUNCTIONS: readonly string[] = [
  'request',
  'get',
  'post',
  'put',
  'del',
  'patch',
  'head',
  'options',
  'batch',
];
