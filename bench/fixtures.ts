/**
 * Transcript messages like the ones agents write (Markdown paragraphs, lists, code blocks,
 * tables, tool calls with JSON parameters and attachments), deterministic, for the webview
 * and memory measurements.
 */
import type { AgentMessage } from '../src/api/types';

export interface BenchMessage extends AgentMessage {
  id: string;
  sequence: number;
  role: string;
  content: string;
  /** The reference's shape (a JSON document as a string): what the emulator stores too. */
  toolParameters?: string;
  attachments?: string[];
  createdAt: number;
}

function assistantText(n: number): string {
  switch (n % 5) {
    case 0:
      return `I looked at **module ${n}** and its callers. The \`load()\` path does not handle errors, so a failed request leaves the list empty without a word. See [the docs](https://example.invalid/docs/${n}).`;
    case 1:
      return [`Plan for step ${n}:`, '', '1. Read `src/App.tsx`', '2. Check the API client for timeouts', `3. Update the tests (${n} so far)`].join('\n');
    case 2:
      return ['```ts', `export async function step${n}(items: Todo[]): Promise<void> {`, '  const res = await load();', '  setItems(res.filter((t) => !t.done));', '}', '```'].join('\n');
    case 3:
      return ['| File | Finding |', '|---|---|', `| \`src/module-${n}.ts\` | ${n * 7} lines, no issues |`, '| `src/api/client.ts` | no request timeout |'].join('\n');
    default:
      return `Checked ${n} of the generated modules; _nothing unusual_ so far. Moving on to the next batch.`;
  }
}

/** Message number `n` (1-based) of a transcript; about one in three is a tool call. */
export function benchMessage(n: number, createdAt: number): BenchMessage {
  const base = { id: `msg-${n}`, sequence: n, createdAt };
  if (n === 1) {
    return { ...base, role: 'user', content: 'Find out why the todo list is sometimes empty after a reload, and fix it. [[long]]' };
  }
  if (n % 3 === 0) {
    return {
      ...base,
      role: 'tool',
      toolName: n % 2 === 0 ? 'read_file' : 'run_command',
      toolParameters: JSON.stringify(n % 2 === 0 ? { path: `src/generated/module-${n}.ts` } : { command: 'npm test', cwd: '/workspace', attempt: n }),
      content: n % 2 === 0 ? `\`module-${n}.ts\`: ${n * 7} lines, no issues.` : '```\n12 passing (1s)\n```',
      ...(n % 9 === 0 ? { attachments: [`logs/run-${n}.txt`] } : {}),
    };
  }
  return { ...base, role: 'assistant', content: assistantText(n) };
}

/** `count` messages numbered from `first`, one second apart, the last one at `end`. */
export function benchMessages(count: number, end: number, first = 1): BenchMessage[] {
  const messages: BenchMessage[] = [];
  for (let i = 0; i < count; i++) {
    messages.push(benchMessage(first + i, end - (count - 1 - i) * 1_000));
  }
  return messages;
}
