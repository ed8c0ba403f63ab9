/**
 * Classification labels, as Triton's LabelProvider: an output's `label_filename` names a text file in the model's
 * folder, one label per line, read when the model loads; label i names class index i. The file must stay inside the
 * model's folder, symbolic links followed (a config cannot make the server read other files and serve them as labels).
 */
import { readFile, realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { ModelConfigJson } from '../config/types.ts';
import { VersionLoadError } from '../errors.ts';

/** strerror's text for the errors opening a file commonly gives. */
const STRERROR: Readonly<Record<string, string>> = {
  ENOENT: 'No such file or directory',
  EACCES: 'Permission denied',
  EISDIR: 'Is a directory',
  ENOTDIR: 'Not a directory',
  ELOOP: 'Too many levels of symbolic links',
};

/** Labels per output name; outputs without label_filename have none. */
export type OutputLabels = ReadonlyMap<string, readonly string[]>;

/** Reads the label files of `config`'s outputs from `modelDir`; a file that cannot be used fails the version's load. */
export async function loadOutputLabels(
  config: ModelConfigJson,
  modelDir: string,
  version: string,
): Promise<OutputLabels> {
  const labels = new Map<string, readonly string[]>();
  for (const output of config.output ?? []) {
    const file = output.label_filename;
    if (typeof file !== 'string' || file === '') continue;
    const path = resolve(modelDir, file);
    let text: string;
    try {
      const [real, realDir] = await Promise.all([realpath(path), realpath(modelDir)]);
      const inside = relative(realDir, real);
      if (isAbsolute(file) || inside === '' || inside === '..' || inside.startsWith(`..${sep}`)) {
        throw new Error(
          `label_filename '${file}' of output '${output.name}' is outside the folder of model '${config.name}'`,
        );
      }
      text = await readFile(real, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (!code) throw err;
      // Triton's words (ReadTextFile), strerror's text after them.
      throw new VersionLoadError(
        version,
        `Internal: failed to open text file for read ${path}: ${STRERROR[code] ?? code}`,
      );
    }
    labels.set(output.name, splitLines(text));
  }
  return labels;
}

/** std::getline over the file: one label per line, a final newline ends the last line rather than adding one. */
function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}
