import { Command } from "commander";
import { registerDeployCommand } from "./commands/deploy.js";
import { registerDevCommand } from "./commands/dev.js";
import { registerUpCommand } from "./commands/up.js";
import { CLI_VERSION } from "./version.js";

/** Runs the `berth` command line; resolves with an exit code for one-shot commands. */
export async function main(argv: string[]): Promise<number | undefined> {
  const program = new Command()
    .name("berth")
    .description("Berth: deploy and run LangGraph agents on your own machines.")
    .version(CLI_VERSION)
    .showHelpAfterError()
    .configureHelp({ sortSubcommands: true });
  registerDeployCommand(program);
  registerDevCommand(program);
  registerUpCommand(program);
  await program.parseAsync(argv);
  return undefined;
}
