/** Runs a commander program to its exit code; errors print as one line, as every command's do. */
import { type Command, CommanderError } from 'commander';
import { EXIT, exitAfterWrites } from '../measure/core/exit-codes.ts';
import { takeNotWritten } from '../report/not-written.ts';

/** Parses argv with `program` and returns the process exit code; result files not written are said last. */
export async function execute(program: Command, argv: string[]): Promise<number> {
  const code = await outcome(program, argv);
  const notWritten = takeNotWritten();
  for (const line of notWritten) console.error(`k6-triton: ${line}`);
  return exitAfterWrites(code, notWritten.length === 0);
}

async function outcome(program: Command, argv: string[]): Promise<number> {
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.OK;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    // Several problems (every bad setting at once) are a line each, each naming the command.
    const message = err instanceof Error ? err.message : String(err);
    for (const line of message.split('\n')) console.error(`k6-triton: ${line}`);
    return EXIT.FAILED;
  }
}
