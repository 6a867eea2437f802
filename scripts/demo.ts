// A live demo: the service emulator at demo speed (one step a second), serving what the
// deployed service serves (preset `deployed`: object tool parameters and attachments, six
// roles, 202 on a start, the 409s, a run on a retired model), and code-server (today's VS
// Code, installed by scripts/setup-demo.sh) with the packaged extension installed, pointed at
// the emulator, signed in and configured for its apps. It ends by printing, plainly, the URL
// to open in a browser, the apps and how to stop (Ctrl+C stops everything).
//
//   npm run demo [-- --port <port>] [-- --verbose] [-- --vscode minimum]
//     --port: code-server's port on 127.0.0.1 (or AGENT_RUNS_DEMO_PORT; ephemeral by default)
//     --verbose: where the emulator listens, and one line per API request
//     --vscode minimum: VS Code 1.100 (the tests' install) instead of today's
//
// The demo token is never written to settings: it goes to a file (mode 0600) in the demo's
// temp folder, named by AGENT_RUNS_SEED_TOKEN_FILE in code-server's environment; the
// extension moves it into SecretStorage for the configured base URL and deletes the file.
import { installCleanupHandlers, interruptedBy, runCleanups } from '../test/support/processes';
import { SEED, type Workspace } from '../test/emulator/index';
import { takeVsCodeFlag, VSCODE_FLAVOUR_ENV } from '../test/support/paths';
import { startSession } from '../test/support/session';

/** The app the demo's profile is configured for (`agentRuns.appId`). */
const DEMO_APP_ID = SEED.apps.todo;

function log(message: string): void {
  process.stderr.write(`[demo] ${message}\n`);
}

/** `  app_todo   Todo App (the default App ID)`: one line per project of the signed-in workspace. */
export function describeApps(workspace: Pick<Workspace, 'projects'>, defaultAppId: string): string[] {
  const width = Math.max(...workspace.projects.map((p) => p.appId.length));
  return workspace.projects.map((p) => {
    const notes = [
      ...(p.appId === defaultAppId ? ['the default App ID'] : []),
      ...(p.verified ? [] : ['not verified: the service refuses runs on it']),
    ];
    return `  ${p.appId.padEnd(width)}  ${p.projectName}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`;
  });
}

async function main(): Promise<void> {
  installCleanupHandlers();
  const argv = process.argv.slice(2);
  // Today's VS Code unless asked otherwise: it runs on the Node 24 that setup-demo.sh caches,
  // whatever the machine's Node is.
  if (!argv.includes('--vscode') && process.env[VSCODE_FLAVOUR_ENV] === undefined) {
    process.env[VSCODE_FLAVOUR_ENV] = 'latest';
  }
  takeVsCodeFlag(argv);
  const portArg = argv.indexOf('--port');
  const port = Number(portArg >= 0 ? argv[portArg + 1] : (process.env.AGENT_RUNS_DEMO_PORT ?? 0));
  const verbose = argv.includes('--verbose');
  const session = await startSession({
    label: 'demo',
    ...(port > 0 ? { port } : {}),
    stepMs: 1000,
    preset: 'deployed',
    signedIn: true,
    logRequests: verbose,
    // The secondary side bar (VS Code's own chat) stays closed: the demo is about this extension.
    settings: { 'agentRuns.appId': DEMO_APP_ID, 'workbench.secondarySideBar.defaultVisibility': 'hidden' },
    workspaceFiles: {
      'README.md': '# Agent Runs demo\n\nOpen the Agent Runs view in the activity bar to start and follow runs.\n',
    },
  });
  if (verbose) {
    log(`service emulator: ${session.emulator.baseUrl} (admin: ${session.emulator.adminUrl}), preset deployed`);
    log(`a run on a retired model to track by ID: ${SEED.agents.retiredModel}; a code review conversation: POST ${session.emulator.adminUrl}/code-review-conversations`);
    log(`extension ${session.extension.id} ${session.extension.version} installed from dist/agent-runs.vsix`);
  }
  const workspace = session.emulator.state.workspaces.get(SEED.workspaces.main);
  const apps = workspace === undefined ? [] : describeApps(workspace, DEMO_APP_ID);
  process.stdout.write([
    '',
    'The Agent Runs demo is running: VS Code with the extension, signed in to a local stand-in for the service.',
    '',
    'Open this in your browser:',
    '',
    `  ${session.workbenchUrl()}`,
    '',
    `Apps of the workspace${workspace === undefined ? '' : ` "${workspace.name}"`} (App ID, project name):`,
    ...apps,
    '',
    'Press Ctrl+C to stop.',
    '',
  ].join('\n'));
  // Runs until a signal: the cleanup handlers stop code-server and the emulator and exit.
  const exit = await session.server.process.exited;
  if (interruptedBy()) {
    return; // Ctrl+C: the signal handler is stopping everything and exits
  }
  log(`code-server stopped by itself (code ${exit.code}, signal ${exit.signal})`);
  await runCleanups();
  process.exit(1);
}

// Run as the demo, not when a test imports describeApps.
if (require.main === module) {
  void main().catch(async (error: unknown) => {
    log(`ERROR: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    await runCleanups();
    process.exit(1);
  });
}
