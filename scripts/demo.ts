// A live demo: the service emulator at demo speed (one step a second), serving what the
// deployed service serves (preset `deployed`: object tool parameters and attachments, six
// roles, 202 on a start, the 409s, a run on a retired model), and code-server with the packaged
// extension installed and pointed at it, signed in. Open the printed URL in a browser; Ctrl+C
// stops everything.
//
//   npm run demo [-- --port <port>] [-- --verbose]
//     --port: code-server's port on 127.0.0.1 (or AGENT_RUNS_DEMO_PORT; ephemeral by default)
//     --verbose: the emulator prints one line per API request
//
// The demo token is never written to settings: it goes to a file (mode 0600) in the demo's
// temp folder, named by AGENT_RUNS_SEED_TOKEN_FILE in code-server's environment; the
// extension moves it into SecretStorage for the configured base URL and deletes the file.
import { installCleanupHandlers, interruptedBy, runCleanups } from '../test/support/processes';
import { SEED } from '../test/emulator/index';
import { startSession } from '../test/support/session';

function log(message: string): void {
  process.stderr.write(`[demo] ${message}\n`);
}

async function main(): Promise<void> {
  installCleanupHandlers();
  const portArg = process.argv.indexOf('--port');
  const port = Number(portArg >= 0 ? process.argv[portArg + 1] : (process.env.AGENT_RUNS_DEMO_PORT ?? 0));
  const session = await startSession({
    label: 'demo',
    ...(port > 0 ? { port } : {}),
    stepMs: 1000,
    preset: 'deployed',
    signedIn: true,
    logRequests: process.argv.includes('--verbose'),
    workspaceFiles: {
      'README.md': '# Agent Runs demo\n\nOpen the Agent Runs view in the activity bar to start and follow runs.\n',
    },
  });
  log(`service emulator: ${session.emulator.baseUrl} (admin: ${session.emulator.adminUrl}), preset deployed`);
  log(`a run on a retired model to track by ID: ${SEED.agents.retiredModel}; a code review conversation: POST ${session.emulator.adminUrl}/code-review-conversations`);
  log(`extension ${session.extension.id} ${session.extension.version} installed from dist/agent-runs.vsix`);
  process.stdout.write(`\nOpen this in a browser:\n\n  ${session.workbenchUrl()}\n\nPress Ctrl+C to stop.\n`);
  // Runs until a signal: the cleanup handlers stop code-server and the emulator and exit.
  const exit = await session.server.process.exited;
  if (interruptedBy()) {
    return; // Ctrl+C: the signal handler is stopping everything and exits
  }
  log(`code-server stopped by itself (code ${exit.code}, signal ${exit.signal})`);
  await runCleanups();
  process.exit(1);
}

void main().catch(async (error: unknown) => {
  log(`ERROR: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  await runCleanups();
  process.exit(1);
});
