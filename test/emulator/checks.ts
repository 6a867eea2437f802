/**
 * The checks of the service, in a real service's order (see server.ts): the token and the
 * plan, the app and its scope, the model's user, the credits, the run, and (deployed shapes)
 * the workspace's concurrent-agent limit.
 */
import type { AgentRecord, Project, Workspace } from './domain';
import { CONFLICT_REASONS, PLAN_REASONS, ServiceError } from './errors';
import type { ModelInfo } from './models';
import { ACTIVE_STATUSES, concurrentAgentLimit } from './plans';
import type { Caller } from './records';
import { TOKEN_PREFIX } from './seed';
import { tokenCovers, type EmulatorState } from './state';

export class ServiceChecks {
  constructor(private readonly state: EmulatorState, private readonly now: () => number) {}

  // ---------------------------------------------------------------- auth and plan

  /** 401 for a missing, malformed, unknown or revoked token; then 402 when the plan lacks API access. */
  authenticate(authorization: string | undefined): Caller {
    if (authorization === undefined || authorization.trim() === '') {
      throw ServiceError.unauthorized('Missing API token: send the header `Authorization: Bearer <API_TOKEN>`.');
    }
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
    if (match === null) throw ServiceError.unauthorized('The Authorization header must use the Bearer scheme: `Authorization: Bearer <API_TOKEN>`.');
    const value = match[1];
    const token = value.startsWith(`${TOKEN_PREFIX}_`) ? this.state.tokens.get(value) : undefined;
    if (token === undefined) throw ServiceError.unauthorized('Invalid API token.');
    if (token.revokedAt !== undefined) throw ServiceError.unauthorized('This API token has been revoked.');
    const workspace = this.state.workspaces.get(token.workspaceId);
    if (workspace === undefined) throw ServiceError.unauthorized('Invalid API token.');
    token.lastUsedAt = this.now();
    if (!workspace.plan.apiAccess) {
      throw ServiceError.of('api_access_required', `The ${workspace.plan.name} plan of workspace "${workspace.name}" does not include REST API access. Upgrade the plan to use the API.`, {
        reason: PLAN_REASONS.noApiAccess,
      });
    }
    return { token, workspace };
  }

  // ---------------------------------------------------------------- shared checks

  /** 404 when the app is not a project of the workspace, 403 when unverified or outside the token's scope. */
  resolveProject(caller: Caller, appId: string): Project {
    const project = this.state.findProject(caller.workspace, appId);
    if (project === undefined) throw ServiceError.of('app_not_found', `No project with app ID "${appId}" in this workspace.`, { field: 'appId' });
    if (!project.verified) {
      throw ServiceError.of('project_not_verified', `The project "${project.projectName}" (app ID "${appId}") is not verified; only verified projects can be used with the API.`, { field: 'appId' });
    }
    if (!tokenCovers(caller.token, project)) {
      throw ServiceError.of('app_outside_token_scope', `This API token is not scoped to the project "${project.projectName}" (app ID "${appId}").`, { field: 'appId' });
    }
    return project;
  }

  /** The checks that tie a connected provider model to a member's credentials. */
  checkModelUser(workspace: Workspace, model: ModelInfo, userEmail: string | undefined): void {
    if (userEmail === undefined) {
      if (model.kind === 'connected_provider') {
        throw ServiceError.of('user_email_required', `The model "${model.id}" runs on a workspace member's ${model.provider} credentials: send \`userEmail\`.`, { field: 'userEmail' });
      }
      return;
    }
    const member = this.state.findMember(workspace, userEmail);
    if (member === undefined) {
      throw ServiceError.of('user_not_workspace_member', `${userEmail} is not a member of workspace "${workspace.name}".`, { field: 'userEmail' });
    }
    if (model.kind === 'connected_provider' && !member.credentials.some((c) => c.provider === model.provider && c.active)) {
      throw ServiceError.of('missing_provider_credentials', `${userEmail} has no active ${model.provider} credentials connected in this workspace.`, { field: 'userEmail' });
    }
  }

  /** 402 when a service-hosted model costs more than the balance; otherwise charges the turn. */
  charge(workspace: Workspace, model: ModelInfo): number {
    if (model.kind !== 'service_hosted') return 0;
    if (workspace.paidCredits < model.creditsPerTurn) {
      throw ServiceError.of(
        'insufficient_paid_credits',
        `Workspace "${workspace.name}" has ${workspace.paidCredits} paid credits; a turn of "${model.id}" needs ${model.creditsPerTurn}.`,
        { reason: PLAN_REASONS.lowCredits },
      );
    }
    workspace.paidCredits -= model.creditsPerTurn;
    return model.creditsPerTurn;
  }

  /** A run the caller may see: same workspace, and an app inside the token's scope. */
  visibleAgent(caller: Caller, agentId: string): AgentRecord {
    const record = this.state.agents.get(agentId);
    const project = record === undefined ? undefined : this.state.findProject(caller.workspace, record.appId);
    if (record === undefined || record.workspaceId !== caller.workspace.id || project === undefined || !tokenCovers(caller.token, project)) {
      throw ServiceError.of('agent_not_found', `No agent run "${agentId}" in this workspace.`);
    }
    return record;
  }

  /**
   * Deployed shapes only: 409 `concurrency_limit` when the workspace already has as many active
   * (`queued` or `running`) conversations as its plan allows; `except` is not counted.
   */
  checkConcurrency(workspace: Workspace, except?: AgentRecord): void {
    if (this.state.settings.shapes !== 'deployed') return;
    const limit = concurrentAgentLimit(workspace.plan);
    let active = 0;
    for (const record of this.state.agents.values()) {
      if (record !== except && record.workspaceId === workspace.id && ACTIVE_STATUSES.includes(record.status)) active += 1;
    }
    if (active >= limit) {
      throw ServiceError.of(
        'concurrency_limit',
        `Workspace "${workspace.name}" has ${active} active agent runs, the limit of its ${workspace.plan.name} plan (${limit}). Wait for a run to finish, then try again.`,
        { reason: CONFLICT_REASONS.concurrentAgentLimit },
      );
    }
  }
}
