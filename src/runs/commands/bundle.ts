/**
 * The run commands and run links, loaded on first use as dist/runCommands.js. The connection's
 * prompts ride along: a separate file in the .vsix would compress worse than these few KB here.
 */
export { followUpCommand } from './followUpCommand';
export { exportRunCommand } from './exportRun';
export { trackRunCommand } from './trackRun';
export { handleRunUri } from './uriHandler';
export { copyLinkCommand } from './copyLink';
export { clearFinishedCommand } from './clearFinished';
export { refreshRunCommand } from './refreshRun';
export { removeRunCommand } from './removeRun';
export { copyAgentIdCommand } from './copyAgentId';
export { openRunCommand } from './openRun';
export { refreshCommand } from './refresh';
// What "your run finished" says: loaded with the commands it offers (src/runs/alerts.ts), not at activation.
export { finishedAlert } from '../common/finishedAlert';
export { notificationMode, showFinished, showOffline } from './finishedNotice';
export { askInsecure, explainMissing } from '../../connection/commands/missing';
export { clearToken } from '../../connection/commands/clearToken';
export { setBaseUrl } from '../../connection/commands/setBaseUrl';
export { setToken } from '../../connection/commands/setToken';
export { showApiError } from '../../connection/showApiError';
// The row of a start that may have arrived: the first time one shows (src/runs/runsTree.ts).
export { startNoticeItem } from './startNoticeItem';
