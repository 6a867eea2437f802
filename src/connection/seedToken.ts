/**
 * Test hook (dist/testHooks.js, left out of the .vsix): stores the token in `AGENT_RUNS_SEED_TOKEN_FILE`
 * for the base URL, then deletes the file; after activation, and never logging the token.
 */
import { promises as fs } from 'node:fs';
import type * as vscode from 'vscode';
import type { Connection } from './connection';
import type { TokenStore } from './tokenStore';

export const SEED_TOKEN_ENV = 'AGENT_RUNS_SEED_TOKEN_FILE';

export async function seedTokenFromEnv(
  env: NodeJS.ProcessEnv,
  connection: Connection,
  auth: TokenStore,
  log: vscode.LogOutputChannel,
): Promise<boolean> {
  const file = env[SEED_TOKEN_ENV];
  if (!file) {
    return false;
  }
  let token: string;
  try {
    token = (await fs.readFile(file, 'utf8')).trim();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
      log.warn(`${SEED_TOKEN_ENV} is set but the file could not be read: ${(e as Error).message}`);
    }
    return false;
  }
  const baseUrl = connection.current.baseUrl;
  if (!baseUrl) {
    log.warn(`${SEED_TOKEN_ENV} is set but agentRuns.baseUrl is not usable; the token was not stored.`);
    return false;
  }
  if (token === '' || /\s/.test(token)) {
    log.warn(`${SEED_TOKEN_ENV} names a file without a usable token; ignored.`);
    return false;
  }
  await auth.set(baseUrl, token);
  try {
    await fs.unlink(file);
  } catch (e) {
    log.warn(`Could not delete the seed token file: ${(e as Error).message}`);
  }
  log.info(`seeded a token from ${SEED_TOKEN_ENV}`);
  await connection.refreshSignedIn();
  return true;
}
