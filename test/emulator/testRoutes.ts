/**
 * The routes of `POST /test-groups` (the reference's) and of the app's tests, test runs, test
 * groups, test users and automations (service-api-wider.md §3–§7): those served under the
 * deployed shapes only (404 like any unknown route otherwise), and within them by the published
 * version (`wider`): A has no `PUT`/`DELETE /test-groups/{id}` (405 with `Allow: GET`) and no
 * `GET /test-groups` (405 with `Allow: POST`).
 */
import { jsonReply } from './http';
import type { ApiServerOptions, Route } from './server';

export function testRoutes(options: Pick<ApiServerOptions, 'service' | 'tests' | 'testRuns'>, deployed: () => boolean): Route[] {
  const { service, tests, testRuns: runs } = options;
  const afterA = (): boolean => tests.version !== 'A';
  return [
    {
      // The reference's one call; the deployed shapes of versions B and C also list the app's groups.
      pattern: /^\/test-groups$/,
      methods: {
        POST: { auth: 'bearer', run: ({ caller, body }) => jsonReply(201, service.createTestGroup(caller, body)) },
        GET: { auth: 'bearer', when: () => deployed() && afterA(), run: ({ caller, query }) => jsonReply(200, tests.listGroups(caller, query)) },
      },
    },
    { pattern: /^\/tests$/, when: deployed, methods: { GET: { auth: 'bearer', run: ({ caller, query }) => jsonReply(200, tests.list(caller, query)) } } },
    { pattern: /^\/tests\/([^/]+)$/, when: deployed, methods: { GET: { auth: 'bearer', run: ({ caller, params }) => jsonReply(200, tests.get(caller, params[0])) } } },
    { pattern: /^\/test-runs$/, when: deployed, methods: { POST: { auth: 'bearer', run: ({ caller, body }) => jsonReply(201, runs.start(caller, body)) } } },
    { pattern: /^\/test-runs\/([^/]+)$/, when: deployed, methods: { GET: { auth: 'bearer', run: ({ caller, params }) => jsonReply(200, runs.get(caller, params[0])) } } },
    { pattern: /^\/test-group-runs$/, when: deployed, methods: { POST: { auth: 'bearer', run: ({ caller, body }) => jsonReply(201, runs.startGroup(caller, body)) } } },
    { pattern: /^\/test-group-runs\/([^/]+)$/, when: deployed, methods: { GET: { auth: 'bearer', run: ({ caller, params }) => jsonReply(200, runs.getGroup(caller, params[0])) } } },
    {
      pattern: /^\/test-groups\/([^/]+)$/,
      when: deployed,
      methods: {
        GET: { auth: 'bearer', run: ({ caller, params }) => jsonReply(200, tests.getGroup(caller, params[0])) },
        PUT: { auth: 'bearer', when: afterA, run: ({ caller, params, body }) => jsonReply(200, tests.updateGroup(caller, params[0], body)) },
        DELETE: { auth: 'bearer', when: afterA, run: ({ caller, params }) => jsonReply(200, tests.deleteGroup(caller, params[0])) },
      },
    },
    { pattern: /^\/test-users$/, when: deployed, methods: { GET: { auth: 'bearer', run: ({ caller, query }) => jsonReply(200, tests.listTestUsers(caller, query)) } } },
    { pattern: /^\/test-users\/([^/]+)$/, when: deployed, methods: { GET: { auth: 'bearer', run: ({ caller, params }) => jsonReply(200, tests.getTestUser(caller, params[0])) } } },
    { pattern: /^\/automations$/, when: deployed, methods: { GET: { auth: 'bearer', run: ({ caller, query }) => jsonReply(200, tests.listAutomations(caller, query)) } } },
    {
      pattern: /^\/automations\/([^/]+)\/run$/,
      when: deployed,
      // No body: whatever is sent is ignored, with or without a content type.
      methods: { POST: { auth: 'bearer', body: 'none', run: ({ caller, params }) => jsonReply(202, tests.runAutomation(caller, params[0])) } },
    },
  ];
}
