/**
 * Entry of the user commands for bin/mmgen: loads only the API client (not
 * the server, its database drivers and media libraries), so that a command
 * such as `mmgen generate image …` starts quickly.
 */
import { isUserCommand, runUserCommand } from './index.js';

export { isUserCommand };

export async function main(argv: string[]): Promise<void> {
  const code = await runUserCommand(argv);
  // Idle keep-alive connections must not hold the process open; stdout and stderr are written synchronously here (files, pipes, terminals on POSIX).
  process.exit(code);
}
