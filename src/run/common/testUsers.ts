/**
 * Which test user a test runs as (live or the branch's test-version user), and whether the run
 * will fail before its first step (user disabled, missing, or of the other database); none is no failure.
 */
import type { TestUser } from '../../api/testTypes';
import type { L10n } from '../../base/common/l10n';
import { isLive } from './branches/testBranch';

/** A test's (or group member's) two assignments, as `GET /tests` and a group's members give them. */
export interface UserAssignment {
  readonly liveTestUserId?: string;
  readonly testVersionTestUserId?: string;
}

export type Environment = 'live' | 'test';

/** What signing in will be on that environment. */
export type UserCheck =
  | { readonly kind: 'none' }
  | { readonly kind: 'ok'; readonly user: TestUser }
  /** The app's test users could not be read: only the ID is known. */
  | { readonly kind: 'unread'; readonly userId: string }
  | { readonly kind: 'disabled'; readonly user: TestUser }
  | { readonly kind: 'missing'; readonly userId: string }
  | { readonly kind: 'wrongDatabase'; readonly user: TestUser; readonly expected: Environment };

export function environmentOf(branch: string): Environment {
  return isLive(branch) ? 'live' : 'test';
}

/** The test user a run on `env` signs in as, checked against the app's users (undefined: not read). */
export function checkTestUser(a: UserAssignment, env: Environment, users: readonly TestUser[] | undefined): UserCheck {
  const userId = (env === 'live' ? a.liveTestUserId : a.testVersionTestUserId)?.trim();
  if (!userId) return { kind: 'none' };
  if (users === undefined) return { kind: 'unread', userId };
  const user = users.find((u) => u.id === userId);
  if (!user) return { kind: 'missing', userId };
  if (user.isDisabled) return { kind: 'disabled', user };
  // A database the extension does not know is the service's to judge.
  if ((user.database === 'test' || user.database === 'live') && user.database !== env) return { kind: 'wrongDatabase', user, expected: env };
  return { kind: 'ok', user };
}

function named(u: TestUser): string {
  return u.name?.trim() || u.email?.trim() || u.id;
}

/** Who signs in, short: "Tess", "no login", "Tess (disabled)", "missing user tu_1". */
export function userWords(c: UserCheck, l10n: L10n): string {
  switch (c.kind) {
    case 'none': return l10n.t('no login');
    case 'ok': return named(c.user);
    case 'unread': return l10n.t('user {0}', c.userId);
    case 'disabled': return l10n.t('{0} (disabled)', named(c.user));
    case 'missing': return l10n.t('missing user {0}', c.userId);
    case 'wrongDatabase': return l10n.t('{0} ({1} database)', named(c.user), c.user.database ?? '');
  }
}

/** A test item's description: who it runs as on branches and live (first: a narrow view cuts the end), then its own. */
export function runsAsDescription(description: string | undefined, a: UserAssignment, users: readonly TestUser[] | undefined, l10n: L10n): string {
  const as = l10n.t('branch: {0} · live: {1}', userWords(checkTestUser(a, 'test', users), l10n), userWords(checkTestUser(a, 'live', users), l10n));
  const own = description?.trim();
  return own ? `${as} · ${own}` : as;
}

/** Why a run of `name` on `env` will fail before it starts, or undefined when it will not (as far as is known). */
export function userProblem(name: string, c: UserCheck, env: Environment, l10n: L10n): string | undefined {
  const where = env === 'live' ? l10n.t('live test user') : l10n.t('test user for branches');
  switch (c.kind) {
    case 'disabled': return l10n.t('{0}: its {1}, {2}, is disabled.', name, where, named(c.user));
    case 'missing': return l10n.t('{0}: its {1} ({2}) is not among the app’s test users.', name, where, c.userId);
    case 'wrongDatabase': return l10n.t('{0}: its {1}, {2}, signs in to the {3} database, not the {4} one.', name, where, named(c.user), c.user.database ?? '', c.expected);
    default: return undefined;
  }
}
