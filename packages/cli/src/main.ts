import { Command } from "commander";
import { registerBuildCommand } from "./commands/build.js";
import { registerDeployCommand } from "./commands/deploy.js";
import { registerDeploymentCommands } from "./commands/deployments.js";
import { registerDevCommand } from "./commands/dev.js";
import { registerKeysCommand, registerWorkspacesCommand } from "./commands/keys.js";
import { registerListenerCommand } from "./commands/listener.js";
import { registerProfileCommand } from "./commands/profile.js";
import { registerServeCommand } from "./commands/serve.js";
import { registerUpCommand } from "./commands/up.js";
import { CLI_VERSION } from "./version.js";

/** Runs the `berth` command line; resolves with an exit code for one-shot commands. */
export async function main(argv: string[]): Promise<number | undefined> {
  const program = new Command()
    .name("berth")
    .description("Berth: deploy and run LangGraph agents on your own machines.")
    .version(CLI_VERSION)
    .showHelpAfterError()
    // A subcommand's options are its own (`listener` and `listener install` share names).
    .enablePositionalOptions()
    .configureHelp({ sortSubcommands: true });
  registerBuildCommand(program);
  registerDeployCommand(program);
  registerDevCommand(program);
  registerServeCommand(program);
  registerUpCommand(program);
  registerKeysCommand(program);
  registerListenerCommand(program);
  registerDeploymentCommands(program);
  registerProfileCommand(program);
  registerWorkspacesCommand(program);
  await program.parseAsync(argv);
  return undefined;
}
