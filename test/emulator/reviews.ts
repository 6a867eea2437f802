/**
 * What a review agent does in a `code_review` conversation (deployed shapes): it compares two
 * versions of the app and reports its findings, one step per tick like any turn (runs.ts).
 * Such a conversation takes no follow-ups (409 `follow_ups_not_supported`), so it has one turn.
 * `[[fail]]` or `[[slow]]` in the review's title or description choose those paths, as directives in a prompt do.
 */
import type { CodeReviewInfo } from './domain';
import { failingSteps, parseDirectives, Writer, type Step, type TurnContext, type TurnScript } from './runs';

/** The prompt a review's conversation starts with (its first `user` message). */
export function reviewPrompt(review: CodeReviewInfo): string {
  const parts = [`Review the changes from ${review.fromVersion} to ${review.toVersion}: ${review.title}`];
  if (typeof review.description === 'string' && review.description !== '') parts.push(review.description);
  if (typeof review.focusAreas === 'string' && review.focusAreas !== '') parts.push(`Focus areas: ${review.focusAreas}`);
  return parts.join('\n\n');
}

export function planReviewTurn(ctx: TurnContext, review: CodeReviewInfo): TurnScript {
  const w = new Writer(ctx);
  const directives = parseDirectives(`${review.title} ${review.description ?? ''}`);
  const range = { appId: ctx.appId, fromVersion: review.fromVersion, toVersion: review.toVersion };
  const steps: Step[] = [
    {
      conversationState: 'thinking',
      sandboxState: 'ready',
      messages: [
        ...w.system(`Code review ${review.reviewId} opened for ${ctx.projectName}.`),
        ...w.thinking(`Compare ${review.fromVersion} with ${review.toVersion}; start with the pages and workflows that changed most.`),
        w.assistant(`Reviewing **${review.title}**: the changes from \`${review.fromVersion}\` to \`${review.toVersion}\`.`),
      ],
    },
    {
      conversationState: 'running_tool',
      messages: [w.tool('diff_versions', range, '2 pages, 3 workflows and 1 data type changed', [
        { kind: 'file', path: `reviews/${review.reviewId}/changes.diff`, mimeType: 'text/x-diff', sizeBytes: 3_310 },
      ])],
    },
  ];
  if (directives.has('fail')) {
    const failing = failingSteps(w);
    return { steps: [...steps, ...failing.steps], outcome: failing.outcome };
  }
  if (directives.has('slow')) {
    for (let k = 1; k <= 6; k++) steps.push({ conversationState: 'thinking', messages: [] });
  }
  steps.push(
    { conversationState: 'running_tool', messages: [w.tool('read_workflows', { page: 'index', version: review.toVersion }, null)] },
    {
      conversationState: 'thinking',
      messages: [w.assistant([
        '### Review findings',
        '',
        '| Priority | Finding |',
        '|---|---|',
        '| high | The API Connector call "Get todos" has no error workflow: a failed call leaves the list empty |',
        '| low | The retry count is a constant in the workflow, not an option set |',
        '',
        'Suggested test: the index page shows an alert when "Get todos" fails.',
      ].join('\n'), [
        { kind: 'issue', identifier: 'TODO-212', title: 'Add an error workflow to the "Get todos" call' },
        { kind: 'file', path: `reviews/${review.reviewId}/findings.md`, mimeType: 'text/markdown', sizeBytes: 904 },
      ])],
    },
  );
  return { steps, outcome: { status: 'completed', conversationState: 'finished' } };
}
