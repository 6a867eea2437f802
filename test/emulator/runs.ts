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
 */

export const DIRECTIVES = ['fail', 'slow', 'long', 'tools', 'ask'] as const;
export type Directive = (typeof DIRECTIVES)[number];

export interface MessageDraft {
  role: 'assistant' | 'tool' | 'system';
  content: string;
  toolName?: string;
  toolParameters?: string;
  attachments?: string[];
}

export interface Step {
  conversationState: string;
  sandboxState?: string;
  messages: MessageDraft[];
}

export type TurnOutcome = { status: 'completed'; conversationState: string } | { status: 'error'; error: string };

export interface TurnScript {
  steps: Step[];
  outcome: TurnOutcome;
}

export interface TurnContext {
  prompt: string;
  turnNumber: number;
  projectName: string;
  model: string;
  permission: string;
  permittedBranches: readonly string[];
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

const params = (value: Record<string, unknown>): string => JSON.stringify(value);

function tool(toolName: string, parameters: Record<string, unknown>, content: string, attachments?: string[]): MessageDraft {
  const draft: MessageDraft = { role: 'tool', toolName, toolParameters: params(parameters), content };
  if (attachments !== undefined) draft.attachments = attachments;
  return draft;
}

function assistant(content: string, attachments?: string[]): MessageDraft {
  return attachments === undefined ? { role: 'assistant', content } : { role: 'assistant', content, attachments };
}

const FILE_TREE = ['src/', '  App.tsx', '  components/', '    TodoList.tsx', '    TodoItem.tsx', '  api/', '    client.ts', 'package.json', 'README.md'].join('\n');

const APP_SOURCE = [
  'export function App() {',
  '  const [items, setItems] = useState<Todo[]>([]);',
  '  useEffect(() => { void load().then(setItems); }, []);',
  '  return <TodoList items={items} />;',
  '}',
].join('\n');

function introStep(ctx: TurnContext): Step {
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
  return { conversationState: 'thinking', sandboxState: 'ready', messages: [assistant(content)] };
}

function exploreSteps(ctx: TurnContext): Step[] {
  const branch = ctx.permittedBranches[0];
  const listParams: Record<string, unknown> = { path: '/', depth: 2 };
  if (branch !== undefined) listParams.branch = branch;
  return [
    { conversationState: 'running_tool', messages: [tool('list_files', listParams, '```\n' + FILE_TREE + '\n```')] },
    { conversationState: 'running_tool', messages: [tool('read_file', { path: 'src/App.tsx' }, '```tsx\n' + APP_SOURCE + '\n```')] },
  ];
}

function editStep(ctx: TurnContext): Step {
  if (ctx.permission === 'allow_edits') {
    const branch = ctx.permittedBranches[0] ?? 'main';
    return {
      conversationState: 'running_tool',
      messages: [
        tool(
          'edit_file',
          { path: 'src/App.tsx', branch, edits: [{ line: 3, replace: 'useEffect(() => { void load().then(setItems).catch(reportError); }, []);' }] },
          `Applied 1 edit to \`src/App.tsx\` on \`${branch}\` (+1 −1).`,
          [`diffs/turn-${ctx.turnNumber}.patch`],
        ),
      ],
    };
  }
  return {
    conversationState: 'thinking',
    messages: [assistant('The run is **read-only**, so I will describe the change instead of making it.')],
  };
}

function summaryStep(ctx: TurnContext, asks: boolean): Step {
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
  return { conversationState: 'thinking', messages: [assistant(lines.join('\n'), [`reports/turn-${ctx.turnNumber}-summary.md`])] };
}

function toolSteps(): Step[] {
  const calls: MessageDraft[] = [
    tool('search_code', { query: 'useEffect', glob: 'src/**/*.tsx' }, 'Found 3 matches in 2 files.'),
    tool('read_file', { path: 'src/components/TodoList.tsx' }, '```tsx\nexport function TodoList({ items }: Props) { /* … */ }\n```'),
    tool('run_command', { command: 'npm test', cwd: '/workspace' }, '```\n12 passing (1s)\n```', ['logs/npm-test.txt']),
    tool('read_file', { path: 'src/api/client.ts' }, '```ts\nexport async function load(): Promise<Todo[]> { /* … */ }\n```'),
    tool('web_fetch', { url: 'https://example.invalid/docs/timeouts' }, 'Fetched 4.2 KB of documentation.'),
    tool('screenshot', { url: '/', viewport: { width: 1280, height: 800 } }, 'Captured the home page.', ['screenshots/home.png']),
    tool('run_command', { command: 'npm run lint' }, '```\n0 problems\n```'),
    tool('write_note', { title: 'Findings', tags: ['todo', 'api'] }, 'Saved a note.', ['notes/findings.md', 'notes/findings.json']),
  ];
  return calls.map((m) => ({ conversationState: 'running_tool', messages: [m] }));
}

function slowSteps(): Step[] {
  const steps: Step[] = [];
  for (let k = 1; k <= 24; k++) {
    // Every other step changes only the lifecycle timestamp: nothing new to read.
    steps.push(k % 2 === 0
      ? { conversationState: 'running_tool', messages: [tool('run_command', { command: 'npm run build', poll: k / 2 }, `Build still running (${k / 2}/12)…`)] }
      : { conversationState: 'thinking', messages: [] });
  }
  return steps;
}

function longSteps(): Step[] {
  const steps: Step[] = [];
  for (let s = 0; s < 30; s++) {
    const messages: MessageDraft[] = [];
    for (let m = 0; m < 10; m++) {
      const n = s * 10 + m + 1;
      messages.push(n % 2 === 1
        ? tool('read_file', { path: `src/generated/module-${n}.ts` }, `\`module-${n}.ts\`: ${n * 7} lines, no issues.`)
        : assistant(`Checked module **${n - 1}** and **${n}** of 300.`));
    }
    steps.push({ conversationState: 'running_tool', messages });
  }
  return steps;
}

/** Builds the script of one turn. Deterministic: same context, same script. */
export function planTurn(ctx: TurnContext): TurnScript {
  const directives = parseDirectives(ctx.prompt);
  const steps: Step[] = [introStep(ctx)];

  if (directives.has('fail')) {
    steps.push({
      conversationState: 'running_tool',
      messages: [tool('run_command', { command: 'npm test' }, '```\nnpm ERR! Test failed. See above for more details.\n```', ['logs/npm-test.txt'])],
    });
    return { steps, outcome: { status: 'error', error: 'The sandbox command `npm test` exited with code 1.' } };
  }

  steps.push(...exploreSteps(ctx));
  if (directives.has('tools')) steps.push(...toolSteps());
  if (directives.has('slow')) steps.push(...slowSteps());
  if (directives.has('long')) steps.push(...longSteps());
  steps.push(editStep(ctx));
  const asks = directives.has('ask');
  steps.push(summaryStep(ctx, asks));
  return { steps, outcome: { status: 'completed', conversationState: asks ? 'awaiting_input' : 'finished' } };
}
