/**
 * Command bodies that load on first use, as their own bundle (dist/runCommands.js): the
 * follow-up box and Export Run…. Their commands are registered at activation
 * (runs/commands/lazyCommands.ts); live objects come in through deps.
 */
export { followUpCommand } from './followUpCommand';
export { exportRunCommand } from './exportRun';
