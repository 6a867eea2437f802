/**
 * The email a connected-provider model is sent when the person typed none: `agentRuns.userEmail`,
 * else git's `user.email` (the built-in git extension, else `git config`), each bounded in time.
 */
import * as os from 'node:os';
import * as vscode from 'vscode';
import { cleanEmail, readGitUserEmail } from './common/gitConfig';

// The built-in git extension's API, as much of it as is used here.
interface GitRepository {
  getConfig(key: string): Promise<string>;
  getGlobalConfig(key: string): Promise<string>;
}
interface GitApi {
  readonly repositories: readonly GitRepository[];
  getRepository(uri: vscode.Uri): GitRepository | null;
}
interface GitExtension {
  readonly enabled: boolean;
  getAPI(version: 1): GitApi;
}

function withTimeout<T>(p: Thenable<T>, ms: number): Promise<T | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      () => {
        clearTimeout(timer);
        resolve(undefined);
      },
    );
  });
}

export async function defaultUserEmail(log: vscode.LogOutputChannel): Promise<string | undefined> {
  const configured = cleanEmail(vscode.workspace.getConfiguration('agentRuns').get<string>('userEmail', ''));
  if (configured) return configured;
  const active = vscode.window.activeTextEditor?.document.uri;
  const folder = (active && vscode.workspace.getWorkspaceFolder(active)) ?? vscode.workspace.workspaceFolders?.[0];
  try {
    const ext = vscode.extensions.getExtension<GitExtension>('vscode.git');
    const exports = ext ? (ext.isActive ? ext.exports : await withTimeout(ext.activate(), 3_000)) : undefined;
    if (exports?.enabled) {
      const api = exports.getAPI(1);
      const repo = (folder ? api.getRepository(folder.uri) : null) ?? api.repositories[0];
      if (repo) {
        const email = cleanEmail(await withTimeout(repo.getConfig('user.email'), 2_000))
          ?? cleanEmail(await withTimeout(repo.getGlobalConfig('user.email'), 2_000));
        if (email) return email;
      }
    }
  } catch (err) {
    log.debug(`git extension: could not read user.email (${err instanceof Error ? err.message : String(err)})`);
  }
  const cwd = folder?.uri.scheme === 'file' ? folder.uri.fsPath : os.homedir();
  return readGitUserEmail(cwd);
}
