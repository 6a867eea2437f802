/**
 * The routes of the app's tests, test runs, test groups and automations (service-api-wider.md
 * §3–§6): served under the deployed shapes only (404 like any unknown route otherwise), and
 * within them by the published version (`wider`): A has no `PUT`/`DELETE /test-groups/{id}`
 * (405 with `Allow: GET`) and no `GET /test-groups` (405 with `Allow: POST`, in server.ts).
 */
import type { AppTestService } from './appTests';
import { jsonReply } from './http';
import type { Route } from './server';
import type { WiderVersion } from './testDomain';
import type { TestRunService } from './testRuns';

export function testRoutes(tests: AppTestService, runs: TestRunService, deployed: () => boolean, wider: () => WiderVersion): Route[] {
  const inB = (): boolean => wider() === 'B';
  return [
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
        PUT: { auth: 'bearer', when: inB, run: ({ caller, params, body }) => jsonReply(200, tests.updateGroup(caller, params[0], body)) },
        DELETE: { auth: 'bearer', when: inB, run: ({ caller, params }) => jsonReply(200, tests.deleteGroup(caller, params[0])) },
      },
    },
    { pattern: /^\/automations$/, when: deployed, methods: { GET: { auth: 'bearer', run: ({ caller, query }) => jsonReply(200, tests.listAutomations(caller, query)) } } },
    {
      pattern: /^\/automations\/([^/]+)\/run$/,
      when: deployed,
      // No body: whatever is sent is ignored, with or without a content type.
      methods: { POST: { auth: 'bearer', body: 'none', run: ({ caller, params }) => jsonReply(202, tests.runAutomation(caller, params[0])) } },
    },
  ];
}
