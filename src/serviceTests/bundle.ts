/**
 * The app's tests in the Test Explorer (issue 22 §1) as their own bundle (`dist/serviceTests.js`),
 * loaded when the service offers them (`agentRuns.serviceTests`, see ./contribution.ts):
 * the test controller, its runs and their reads, Ask Agent to Fix for a service test.
 */
export { ServiceTests } from './controller';
// What the TestRuns were told, for the integration tests (they require this same module).
export { said } from './runner';
export { current } from './controller';
