/**
 * The emulator's default data. Token values are fixed so demos and test logs are
 * reproducible; they look like real tokens (`agr_` + 40 random-looking characters).
 */
import type { DemoTokens, Seed } from './domain';
import { PRESETS } from './settings';

/** The fixed token prefix of the service (`<prefix>_<secret>`). */
export const TOKEN_PREFIX = 'agr';

export const DEMO_TOKENS: Readonly<DemoTokens> = Object.freeze({
  default: 'agr_vgVM0TmuaGrhZz5JnDQtFEvfOSwjDfmvxfjCUqIM',
  scoped: 'agr_UeOKHvHTtDufBSyhXhH3Oopm8M0a2NQdsjr1fECh',
  noApiAccess: 'agr_7EeLC5BiW9BGRJAwlSnDO0B7SVpPkkaCcomsEVsY',
  noCredits: 'agr_0eLHBOQeMA1jI0mzMKfxoWdj63aQfrjwcdipZSPp',
  revoked: 'agr_u0tCLBqU5gVFGYsWVfKnnppSS2Q5wwiBF4eXF155',
});

/** Identifiers of the default seed, for tests and demos. */
export const SEED = Object.freeze({
  workspaces: { main: 'ws_acme', noCredits: 'ws_broke', noApiAccess: 'ws_free' },
  apps: {
    /** Verified, in the scoped token's scope. */
    todo: 'app_todo',
    /** Verified, outside the scoped token's scope. */
    shop: 'app_shop',
    crm: 'app_crm',
    /** In the main workspace but not verified. */
    draft: 'app_draft',
    /** Verified project of the no-credits workspace. */
    broke: 'app_broke',
    /** Project of the workspace without API access. */
    free: 'app_free',
  },
  emails: {
    /** Member with active openai and anthropic credentials. */
    dev: 'dev@example.com',
    /** Admin with active openai credentials. */
    admin: 'admin@example.com',
    /** Member without any provider credentials. */
    noCreds: 'nocreds@example.com',
    /** Member whose anthropic credentials are inactive (expired). */
    expired: 'expired@example.com',
    /** Not a member of any workspace. */
    stranger: 'stranger@example.org',
    /** Member of the no-credits workspace, with active openai credentials. */
    brokeOwner: 'owner@broke.example',
  },
  paidCredits: { main: 100, noCredits: 0, noApiAccess: 25 },
  /** Runs seeded under `shapes: 'deployed'` only (deployedSeed.ts). */
  agents: {
    /** A completed run of `ws_acme`/`app_todo` on the retired model `anthropic/claude-sonnet-4`. */
    retiredModel: 'agt_seed_retired_model',
  },
});

export function defaultSeed(): Seed {
  return {
    workspaces: [
      {
        id: 'ws_acme',
        name: 'Acme Corp',
        plan: { id: 'business', name: 'Business', apiAccess: true },
        paidCredits: SEED.paidCredits.main,
        members: [
          { email: 'admin@example.com', role: 'admin', credentials: [{ provider: 'openai', active: true }] },
          {
            email: 'dev@example.com',
            role: 'member',
            credentials: [{ provider: 'openai', active: true }, { provider: 'anthropic', active: true }],
          },
          { email: 'nocreds@example.com', role: 'member', credentials: [] },
          { email: 'expired@example.com', role: 'member', credentials: [{ provider: 'anthropic', active: false }] },
        ],
        projects: [
          { appId: 'app_todo', projectId: 'prj_01J8Z4T0D0K3V9', projectName: 'Todo App', verified: true },
          { appId: 'app_shop', projectId: 'prj_01J8Z4W5H0P2M7', projectName: 'Shop Frontend', verified: true },
          { appId: 'app_crm', projectId: 'prj_01J8Z4Y8C4R1Q6', projectName: 'CRM Portal', verified: true },
          { appId: 'app_draft', projectId: 'prj_01J8Z51DRAFT00', projectName: 'Draft Prototype', verified: false },
        ],
      },
      {
        id: 'ws_broke',
        name: 'Broke Studio',
        plan: { id: 'team', name: 'Team', apiAccess: true },
        paidCredits: SEED.paidCredits.noCredits,
        members: [{ email: 'owner@broke.example', role: 'admin', credentials: [{ provider: 'openai', active: true }] }],
        projects: [{ appId: 'app_broke', projectId: 'prj_01J8Z6B2K0S5E3', projectName: 'Landing Page', verified: true }],
      },
      {
        id: 'ws_free',
        name: 'Free Tier Co',
        plan: { id: 'free', name: 'Free', apiAccess: false },
        paidCredits: SEED.paidCredits.noApiAccess,
        members: [{ email: 'free@example.com', role: 'admin', credentials: [] }],
        projects: [{ appId: 'app_free', projectId: 'prj_01J8Z7F3E0T8A1', projectName: 'Hobby App', verified: true }],
      },
    ],
    tokens: [
      { id: 'tok_default', name: 'Default (all projects)', value: DEMO_TOKENS.default, workspaceId: 'ws_acme', projects: 'all' },
      { id: 'tok_scoped', name: 'Scoped to Todo App', value: DEMO_TOKENS.scoped, workspaceId: 'ws_acme', projects: ['app_todo'] },
      { id: 'tok_free', name: 'Free plan', value: DEMO_TOKENS.noApiAccess, workspaceId: 'ws_free', projects: 'all' },
      { id: 'tok_broke', name: 'No credits', value: DEMO_TOKENS.noCredits, workspaceId: 'ws_broke', projects: 'all' },
      { id: 'tok_revoked', name: 'Revoked', value: DEMO_TOKENS.revoked, workspaceId: 'ws_acme', projects: 'all', revoked: true },
    ],
    settings: { ...PRESETS.reference },
  };
}
