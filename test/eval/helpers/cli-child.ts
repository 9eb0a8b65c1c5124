/**
 * `taoloop eval` as main.ts wires it, in its own process: `node --import tsx cli-child.ts eval ...`.
 * Exits with the command's code; a usage error prints `taoloop: <message>` and exits 2.
 */
import { Command } from 'commander';
import { registerEvalCommand } from '../../../src/cli/commands/eval.js';
import { UsageError } from '../../../src/cli/errors.js';

let code = 0;
const program = new Command('taoloop').exitOverride();
registerEvalCommand(program, (c) => {
  code = c;
});
try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  process.stderr.write(`taoloop: ${error.message}\n`);
  code = 2;
}
process.exitCode = code;
