/**
 * What an agent does in one turn, as a deterministic script of steps. The service advances
 * a run by one step per tick (`stepMs` of emulator time).
 *
 * Prompt directives (anywhere in the prompt, case-insensitive) choose the script:
 *   [[fail]]   the turn ends in `error` with `lastError`
 *   [[slow]]   many more steps (about 24 extra), some without any visible change
 *   [[long]]   hundreds of messages (300 extra, 10 per step)
 *   [[tools]]  many tool calls, with parameters and attachments
 *   [[ask]]    the turn ends with a question; conversationState `awaiting_input`
 * Without a directive a turn takes 7 ticks: start, 5 work steps (intro, list, read, edit or
 * read-only note, summary), finish.
 *
 * Messages are written in the shapes in force (shapes.ts). Under `deployed` the same work
 * also shows what the deployed service writes: a `system` message when the sandbox comes up
 * on the first turn, a `thinking` message before the agent answers, tool parameters as
 * objects, tool calls without output as `content: null`, attachments as objects (files,
 * linked issues, a sandbox snapshot no client knows) and, for a failed turn, an `error`
 * message (service.ts).
 */
import type { JsonObject } from './domain';
import { writeAttachments, type AttachmentSpec, type ShapesName } from './shapes';

export const DIRECTIVES = ['fail', 'slow', 'long', 'tools', 'ask'] as const;
export type Directive = (typeof DIRECTIVES)[number];

export interface MessageDraft {
  role: string;
  content: string | null;
  toolName?: string;
  toolParameters?: string | JsonObject;
  attachments?: (string | JsonObject)[];
}

export interface Step {
  conversationState: string;
  sandboxState?: string;
  messages: MessageDraft[];
}

export type TurnOutcome = { status: 'completed'; conversationState: 'finished' | 'awaiting_input' } | { status: 'error'; error: string };

export interface TurnScript {
  steps: Step[];
  outcome: TurnOutcome;
}

export interface TurnContext {
  prompt: string;
  turnNumber: number;
  appId: string;
  projectName: string;
  model: string;
  permission: string;
  permittedBranches: readonly string[];
  shapes: ShapesName;
}

export function parseDirectives(prompt: string): Set<Directive> {
  const found = new Set<Directive>();
  for (const match of prompt.matchAll(/\[\[([a-z]+)\]\]/gi)) {
    const name = match[1].toLowerCase();
    const directive = DIRECTIVES.find((d) => d === name);
    if (directive !== undefined) found.add(directive);
  }
  return found;
}

/** The prompt without directives, shortened for quoting in messages. */
export function promptExcerpt(prompt: string, max = 80): string {
  const clean = prompt.replace(/\[\[[a-z]+\]\]/gi, '').replace(/\s+/g, ' ').trim();
  if (clean === '') return '(no text)';
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/** Writes messages in the shapes of a turn's context. */
export class Writer {
  readonly deployed: boolean;

  constructor(private readonly ctx: Pick<TurnContext, 'shapes' | 'appId'>) {
    this.deployed = ctx.shapes === 'deployed';
  }

  private attach(draft: MessageDraft, attachments: readonly AttachmentSpec[] | undefined): MessageDraft {
    if (attachments === undefined) return draft;
    const written = writeAttachments(this.ctx.shapes, this.ctx.appId, attachments);
    return written.length === 0 ? draft : { ...draft, attachments: written };
  }

  /** A tool call; `content` null (deployed shapes only): the call has parameters and no output. */
  tool(toolName: string, parameters: JsonObject, content: string | null, attachments?: readonly AttachmentSpec[]): MessageDraft {
    const toolParameters = this.deployed ? structuredClone(parameters) : JSON.stringify(parameters);
    return this.attach({ role: 'tool', toolName, toolParameters, content: this.deployed ? content : (content ?? '') }, attachments);
  }

  assistant(content: string, attachments?: readonly AttachmentSpec[]): MessageDraft {
    return this.attach({ role: 'assistant', content }, attachments);
  }

  /** Under reference shapes: nothing (the reference has no such roles). */
  thinking(content: string): MessageDraft[] {
    return this.deployed ? [{ role: 'thinking', content }] : [];
  }

  system(content: string): MessageDraft[] {
    return this.deployed ? [{ role: 'system', content }] : [];
  }
}

const file = (path: string, mimeType: string, sizeBytes?: number): AttachmentSpec => (sizeBytes === undefined ? { kind: 'file', path, mimeType } : { kind: 'file', path, mimeType, sizeBytes });

/** What `list_app_structure` answers: the seeded app's pages, reusable elements, data types and option sets. */
const APP_STRUCTURE = [
  'Pages: index, settings, todo_detail, reset_pw, 404',
  'Reusable elements: Header, Todo card',
  'Data types:',
  '  User: email (text), name (text), notifications (yes / no)',
  '  Todo: title (text), done (yes / no), due date (date), priority (Priority), owner (User)',
  'Option sets:',
  '  Priority: Low, Medium, High',
  'Backend workflows: send_daily_reminder',
].join('\n');

/** What `read_page` answers for the Settings page: its element tree and workflows. */
const SETTINGS_PAGE = [
  'settings (page, 1 workflow)',
  '  Header (reusable element)',
  '  Group Preferences',
  '    Text "Preferences"',
  '    Checkbox Notifications',
  '    Button Save',
  '',
  'Workflows:',
  '  When Button Save is clicked → Make changes to Current User (notifications = Checkbox Notifications is checked)',
].join('\n');

/** The workflow the edit creates, as the summary quotes it. */
const THEME_WORKFLOW = [
  "When Toggle Dark mode's value is changed",
  "  → Make changes to Current User: theme = Theme:Dark if Toggle Dark mode is checked, else Theme:Light",
].join('\n');

function introStep(ctx: TurnContext, w: Writer): Step {
  const excerpt = promptExcerpt(ctx.prompt);
  const content = ctx.turnNumber === 1
    ? [
        `I'll start by exploring **${ctx.projectName}**: its pages, data types and workflows.`,
        '',
        'Plan:',
        '1. Look at the app structure (pages, data types, option sets)',
        '2. Open the Settings page and its workflows',
        `3. Work on: _${excerpt}_`,
      ].join('\n')
    : `Picking up your follow-up: _${excerpt}_`;
  const messages = [
    ...(ctx.turnNumber === 1 ? w.system(`Sandbox started for ${ctx.projectName} (${ctx.model}).`) : []),
    ...w.thinking(`The request is "${excerpt}". Look at the app's pages and data types first, then at the Settings page, where the user's preferences live.`),
    w.assistant(content),
  ];
  return { conversationState: 'thinking', sandboxState: 'ready', messages };
}

function exploreSteps(ctx: TurnContext, w: Writer): Step[] {
  const branch = ctx.permittedBranches[0];
  const structureParams: JsonObject = { include: ['pages', 'reusable_elements', 'data_types', 'option_sets'] };
  if (branch !== undefined) structureParams.branch = branch;
  return [
    { conversationState: 'running_tool', messages: [w.tool('list_app_structure', structureParams, '```\n' + APP_STRUCTURE + '\n```')] },
    { conversationState: 'running_tool', messages: [w.tool('read_page', { page: 'settings' }, '```\n' + SETTINGS_PAGE + '\n```')] },
  ];
}

function editStep(ctx: TurnContext, w: Writer): Step {
  if (ctx.permission === 'allow_edits') {
    const branch = ctx.permittedBranches[0] ?? 'main';
    const applied = [
      `Applied 4 changes on branch \`${branch}\`:`,
      '- Created the option set **Theme** (Light, Dark)',
      "- Added the field **theme** (Theme) to the data type **User**",
      '- Added a **Dark mode** toggle element to the **Settings** page, in Group Preferences',
      "- Created the workflow **When Toggle Dark mode's value is changed**, which sets the Current User's theme",
    ].join('\n');
    const call = w.tool(
      'edit_app',
      {
        branch,
        changes: [
          { action: 'create_option_set', name: 'Theme', options: ['Light', 'Dark'] },
          { action: 'add_field', dataType: 'User', field: 'theme', type: 'Theme' },
          { action: 'add_element', page: 'settings', parent: 'Group Preferences', element: 'Toggle Dark mode', type: 'Toggle' },
          { action: 'add_workflow', page: 'settings', event: "When Toggle Dark mode's value is changed", steps: ["Make changes to Current User: theme = Theme:Dark if Toggle Dark mode is checked, else Theme:Light"] },
        ],
      },
      // The deployed service records the call with its parameters only; the change list is attached.
      w.deployed ? null : applied,
      [file(`changes/turn-${ctx.turnNumber}.json`, 'application/json', 412)],
    );
    return { conversationState: 'running_tool', messages: [call] };
  }
  return {
    conversationState: 'thinking',
    messages: [
      ...w.thinking('Edits are not allowed in this run: describe the change instead.'),
      w.assistant('The run is **read-only**, so I will describe the change instead of making it.'),
    ],
  };
}

function summaryStep(ctx: TurnContext, w: Writer, asks: boolean): Step {
  const lines = [
    `### Summary (turn ${ctx.turnNumber})`,
    '',
    `Request: _${promptExcerpt(ctx.prompt)}_`,
    '',
    '| Where | Change |',
    '|---|---|',
    '| Option set **Theme** | new: Light, Dark |',
    '| Data type **User** | new field `theme` (Theme), default Light |',
    '| Page **settings** | a Dark mode toggle element in Group Preferences |',
    '| Workflow on **settings** | sets the Current User\'s theme when the toggle changes |',
    '',
    '```',
    THEME_WORKFLOW,
    '```',
  ];
  if (asks) lines.push('', 'Should I also apply the theme to the **Header** reusable element?');
  const attachments: AttachmentSpec[] = [file(`reports/turn-${ctx.turnNumber}-summary.md`, 'text/markdown', 1_180 + ctx.turnNumber)];
  if (w.deployed) {
    // A follow-up issue filed for what is left, and a snapshot of the sandbox (a kind of attachment no client knows).
    attachments.push(
      { kind: 'issue', identifier: `TODO-${100 + ctx.turnNumber}`, title: 'Apply the theme to the Header reusable element' },
      { kind: 'snapshot', snapshotId: `snap_${ctx.appId}_t${ctx.turnNumber}`, sizeBytes: 52_428_800 + ctx.turnNumber, retainedForDays: 7 },
    );
  }
  return { conversationState: 'thinking', messages: [w.assistant(lines.join('\n'), attachments)] };
}

function toolSteps(w: Writer): Step[] {
  const calls: MessageDraft[] = [
    w.tool('search_app', { query: 'theme', in: ['elements', 'workflows', 'data_types', 'option_sets'] }, 'Found 3 matches: 2 elements on index, 1 condition on the Header reusable element.'),
    w.tool('read_page', { page: 'index' }, '```\nindex (page, 3 workflows)\n  Header (reusable element)\n  Repeating group Todos (type: Todo, source: Search for Todos where owner = Current User)\n    Todo card (reusable element)\n  Input New todo\n  Button Add\n```'),
    w.tool('run_test', { test: 'Add a todo', branch: 'main' }, '```\nAdd a todo: 5 of 5 steps passed (38 s)\n```', [file('logs/test-run-add-a-todo.txt', 'text/plain', 2_048)]),
    w.tool('read_workflows', { page: 'index' }, '```\nWhen Button Add is clicked → Create a new Todo (title = Input New todo\'s value, owner = Current User) → Reset inputs\n```'),
    w.tool('web_fetch', { url: 'https://example.invalid/docs/conditional-formatting' }, 'Fetched 4.2 KB of documentation.'),
    w.tool(
      'screenshot',
      { page: 'index', viewport: { width: 1280, height: 800 } },
      w.deployed ? null : 'Captured the index page.',
      [{ kind: 'file', path: 'screenshots/home.png', mimeType: 'image/png', width: 1280, height: 800 }],
    ),
    w.tool('check_issues', { branch: 'main' }, 'The issue checker found 0 issues.'),
    w.tool(
      'write_note',
      { title: 'Findings', tags: ['theme', 'settings'] },
      w.deployed ? null : 'Saved a note.',
      [file('notes/findings.md', 'text/markdown', 640), file('notes/findings.json', 'application/json', 212)],
    ),
  ];
  return calls.map((m) => ({ conversationState: 'running_tool', messages: [m] }));
}

function slowSteps(w: Writer): Step[] {
  const steps: Step[] = [];
  for (let k = 1; k <= 24; k++) {
    // Every other step changes only the lifecycle timestamp: nothing new to read.
    steps.push(k % 2 === 0
      ? { conversationState: 'running_tool', messages: [w.tool('sync_version', { branch: 'main', poll: k / 2 }, `Sync of main still indexing (${k / 2}/12)…`)] }
      : { conversationState: 'thinking', messages: [] });
  }
  return steps;
}

function longSteps(w: Writer): Step[] {
  const steps: Step[] = [];
  for (let s = 0; s < 30; s++) {
    const messages: MessageDraft[] = [];
    for (let m = 0; m < 10; m++) {
      const n = s * 10 + m + 1;
      messages.push(n % 2 === 1
        ? w.tool('read_workflow', { page: 'index', workflow: `Workflow ${n}` }, `Workflow ${n}: ${(n % 6) + 1} actions, no issues.`)
        : w.assistant(`Checked workflows **${n - 1}** and **${n}** of 300.`));
    }
    steps.push({ conversationState: 'running_tool', messages });
  }
  return steps;
}

/** The failing test run of `[[fail]]` and what the turn ends with. */
export function failingSteps(w: Writer): { steps: Step[]; outcome: TurnOutcome } {
  return {
    steps: [{
      conversationState: 'running_tool',
      messages: [w.tool('run_test', { test: 'Settings page saves preferences', branch: 'main' }, '```\nStep 3 of 5 failed: Button Save is not visible on the settings page.\n```', [file('logs/test-run-settings.txt', 'text/plain', 2_048)])],
    }],
    outcome: { status: 'error', error: 'The test "Settings page saves preferences" failed at step 3 of 5.' },
  };
}

/** Builds the script of one turn. Deterministic: same context, same script. */
export function planTurn(ctx: TurnContext): TurnScript {
  const w = new Writer(ctx);
  const directives = parseDirectives(ctx.prompt);
  const steps: Step[] = [introStep(ctx, w)];

  if (directives.has('fail')) {
    const failing = failingSteps(w);
    return { steps: [...steps, ...failing.steps], outcome: failing.outcome };
  }

  steps.push(...exploreSteps(ctx, w));
  if (directives.has('tools')) steps.push(...toolSteps(w));
  if (directives.has('slow')) steps.push(...slowSteps(w));
  if (directives.has('long')) steps.push(...longSteps(w));
  steps.push(editStep(ctx, w));
  const asks = directives.has('ask');
  steps.push(summaryStep(ctx, w, asks));
  return { steps, outcome: { status: 'completed', conversationState: asks ? 'awaiting_input' : 'finished' } };
}
