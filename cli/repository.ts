/**
 * `k6-triton repository <dir>`: writes the model catalog as a Triton model repository for the onnxruntime backend
 * (config.pbtxt from the catalog, the trained MNIST model, stand-in graphs for the others), which real Triton and
 * `k6-triton serve --model-repository <dir>` both serve.
 */
import { type Command, InvalidArgumentError } from 'commander';
import { modelIds, SEQUENCE_MODELS } from '../models/index.ts';
import { writeCatalogRepository } from '../measure/repository/export.ts';

/** Parses one `--precision <id>=<P>` into the map of earlier ones. */
function precisionPair(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const match = /^([^=\s]+)=([^=\s]+)$/.exec(value.trim());
  if (!match) {
    throw new InvalidArgumentError(`expected <model>=<PRECISION>, e.g. dlrm=FP16, got "${value}"`);
  }
  return { ...previous, [match[1]!]: match[2]!.toUpperCase() };
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** Adds the `repository` subcommand to the program. */
export function registerRepository(program: Command): void {
  program
    .command('repository')
    .description(
      'Write the catalog models as a Triton model repository (onnxruntime backend): <dir>/<model>/config.pbtxt and 1/model.onnx',
    )
    .argument('<dir>', "folder to write into (created if missing; the models' own files are overwritten)")
    .option(
      '--model <id>',
      `only this catalog model (repeatable): ${[...modelIds(), ...Object.keys(SEQUENCE_MODELS)].join(', ')}`,
      collect,
    )
    .option(
      '--precision <id=P>',
      "a model's inputs at a PRECISION, e.g. dlrm=FP16 or resnext101-32x4d=FP16 (repeatable)",
      precisionPair,
    )
    .addHelpText(
      'after',
      '\nServe it with `tritonserver --model-repository=<dir>` or `k6-triton serve --model-repository <dir>`.\n' +
        "MNIST is the trained model; the others are stand-ins with the catalog's tensors and cheap compute.",
    )
    .action(async (dir: string, opts: { model?: string[]; precision?: Record<string, string> }) => {
      const written = await writeCatalogRepository(dir, { models: opts.model, precisions: opts.precision });
      for (const m of written) {
        const precision = m.precision ? ` at ${m.precision}` : '';
        console.log(
          m.kind === 'backend'
            ? `${m.name}: no model file (served by its backend) -> ${m.dir}`
            : `${m.name}: ${m.kind} model${precision}, ${m.onnx_bytes} bytes -> ${m.dir}`,
        );
      }
      console.log(`wrote ${written.length} model${written.length === 1 ? '' : 's'} to ${dir}`);
    });
}
