/** Applying position-sorted edits to a bundle's text (the loader's transforms edit within lines). */

/** Replace `code[start, end)` with `text`; an insertion has start === end. */
export interface TextEdit {
  start: number;
  end: number;
  text: string;
}

/** `code` with `edits` applied; edits are sorted by position and do not overlap. */
export function applyEdits(code: string, edits: readonly TextEdit[]): string {
  let out = '';
  let last = 0;
  for (const e of edits) {
    out += code.slice(last, e.start) + e.text;
    last = e.end;
  }
  return out + code.slice(last);
}
