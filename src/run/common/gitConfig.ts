/** `git config user.email` for when the git extension is absent; never throws (no git, no repository, a slow disk: undefined). */
import { execFile } from 'node:child_process';
import { isEmailAddress } from '../../api/validate';

export const GIT_CONFIG_TIMEOUT_MS = 2_000;

export function readGitUserEmail(cwd: string | undefined, timeoutMs = GIT_CONFIG_TIMEOUT_MS, gitPath = 'git'): Promise<string | undefined> {
  return new Promise((resolve) => {
    try {
      execFile(gitPath, ['config', '--get', 'user.email'], { cwd, timeout: timeoutMs, windowsHide: true, maxBuffer: 64 * 1024 }, (error, stdout) => {
        resolve(error ? undefined : cleanEmail(String(stdout)));
      });
    } catch {
      resolve(undefined);
    }
  });
}

/** The value if it looks like an email address, trimmed; otherwise undefined. */
export function cleanEmail(value: string | undefined): string | undefined {
  const v = (value ?? '').trim();
  return v !== '' && isEmailAddress(v) ? v : undefined;
}
