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

const FILE_TREE = ['src/', '  App.tsx', '  components/', '    TodoList.tsx', '    TodoItem.tsx', '  api/', '    client.ts', 'package.json', 'README.md'].join('\n');

const APP_SOURCE = [
  'export function App() {',
  '  const [items, setItems] = useState<Todo[]>([]);',
  '  useEffect(() => { void load().then(setItems); }, []);',
  '  return <TodoList items={items} />;',
  '}',
].join('\n');

function introStep(ctx: TurnContext, w: Writer): Step {
  const excerpt = promptExcerpt(ctx.prompt);
  const content = ctx.turnNumber === 1
    ? [
        `I'll start by exploring **${ctx.projectName}** to understand how it is put together.`,
        '',
        'Plan:',
        '1. List the project files',
        '2. Read the relevant sources',
        `3. Work on: _${excerpt}_`,
      ].join('\n')
    : `Picking up your follow-up: _${excerpt}_`;
  const messages = [
    ...(ctx.turnNumber === 1 ? w.system(`Sandbox started for ${ctx.projectName} (${ctx.model}).`) : []),
    ...w.thinking(`The request is "${excerpt}". Look at the project layout first, then at the component that loads the data.`),
    w.assistant(content),
  ];
  return { conversationState: 'thinking', sandboxState: 'ready', messages };
}

function exploreSteps(ctx: TurnContext, w: Writer): Step[] {
  const branch = ctx.permittedBranches[0];
  const listParams: JsonObject = { path: '/', depth: 2 };
  if (branch !== undefined) listParams.branch = branch;
  return [
    { conversationState: 'running_tool', messages: [w.tool('list_files', listParams, '```\n' + FILE_TREE + '\n```')] },
    { conversationState: 'running_tool', messages: [w.tool('read_file', { path: 'src/App.tsx' }, '```tsx\n' + APP_SOURCE + '\n```')] },
  ];
}

function editStep(ctx: TurnContext, w: Writer): Step {
  if (ctx.permission === 'allow_edits') {
    const branch = ctx.permittedBranches[0] ?? 'main';
    const applied = `Applied 1 edit to \`src/App.tsx\` on \`${branch}\` (+1 −1).`;
    const call = w.tool(
      'edit_file',
      { path: 'src/App.tsx', branch, edits: [{ line: 3, replace: 'useEffect(() => { void load().then(setItems).catch(reportError); }, []);' }] },
      // The deployed service records the call with its parameters only; the diff is attached.
      w.deployed ? null : applied,
      [file(`diffs/turn-${ctx.turnNumber}.patch`, 'text/x-diff', 412)],
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
    '| File | Finding |',
    '|---|---|',
    '| `src/App.tsx` | `load()` errors are not handled |',
    '| `src/api/client.ts` | no request timeout |',
    '',
    '```ts',
    'void load().then(setItems).catch(reportError);',
    '```',
  ];
  if (asks) lines.push('', 'Should I also add a timeout to `src/api/client.ts`?');
  const attachments: AttachmentSpec[] = [file(`reports/turn-${ctx.turnNumber}-summary.md`, 'text/markdown', 1_180 + ctx.turnNumber)];
  if (w.deployed) {
    // A follow-up issue filed for the second finding, and a snapshot of the sandbox (a kind of attachment no client knows).
    attachments.push(
      { kind: 'issue', identifier: `TODO-${100 + ctx.turnNumber}`, title: 'Add a request timeout to src/api/client.ts' },
      { kind: 'snapshot', snapshotId: `snap_${ctx.appId}_t${ctx.turnNumber}`, sizeBytes: 52_428_800 + ctx.turnNumber, retainedForDays: 7 },
    );
  }
  return { conversationState: 'thinking', messages: [w.assistant(lines.join('\n'), attachments)] };
}

function toolSteps(w: Writer): Step[] {
  const calls: MessageDraft[] = [
    w.tool('search_code', { query: 'useEffect', glob: 'src/**/*.tsx' }, 'Found 3 matches in 2 files.'),
    w.tool('read_file', { path: 'src/components/TodoList.tsx' }, '```tsx\nexport function TodoList({ items }: Props) { /* … */ }\n```'),
    w.tool('run_command', { command: 'npm test', cwd: '/workspace' }, '```\n12 passing (1s)\n```', [file('logs/npm-test.txt', 'text/plain', 2_048)]),
    w.tool('read_file', { path: 'src/api/client.ts' }, '```ts\nexport async function load(): Promise<Todo[]> { /* … */ }\n```'),
    w.tool('web_fetch', { url: 'https://example.invalid/docs/timeouts' }, 'Fetched 4.2 KB of documentation.'),
    w.tool(
      'screenshot',
      { url: '/', viewport: { width: 1280, height: 800 } },
      w.deployed ? null : 'Captured the home page.',
      [{ kind: 'file', path: 'screenshots/home.png', mimeType: 'image/png', width: 1280, height: 800 }],
    ),
    w.tool('run_command', { command: 'npm run lint' }, '```\n0 problems\n```'),
    w.tool(
      'write_note',
      { title: 'Findings', tags: ['todo', 'api'] },
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
      ? { conversationState: 'running_tool', messages: [w.tool('run_command', { command: 'npm run build', poll: k / 2 }, `Build still running (${k / 2}/12)…`)] }
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
        ? w.tool('read_file', { path: `src/generated/module-${n}.ts` }, `\`module-${n}.ts\`: ${n * 7} lines, no issues.`)
        : w.assistant(`Checked module **${n - 1}** and **${n}** of 300.`));
    }
    steps.push({ conversationState: 'running_tool', messages });
  }
  return steps;
}

/** The failing command of `[[fail]]` and what the turn ends with. */
export function failingSteps(w: Writer): { steps: Step[]; outcome: TurnOutcome } {
  return {
    steps: [{
      conversationState: 'running_tool',
      messages: [w.tool('run_command', { command: 'npm test' }, '```\nnpm ERR! Test failed. See above for more details.\n```', [file('logs/npm-test.txt', 'text/plain', 2_048)])],
    }],
    outcome: { status: 'error', error: 'The sandbox command `npm test` exited with code 1.' },
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
