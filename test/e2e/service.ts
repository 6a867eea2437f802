// What a test does on the service directly, as another client of it would (not through the extension).
import * as assert from 'node:assert/strict';
import type { Workbench } from './harness';

/** Starts a run with the emulator's default token; `fields` add to or replace the request's. */
export async function startRunOnService(wb: Workbench, prompt: string, fields: Readonly<Record<string, unknown>> = {}): Promise<string> {
  const res = await fetch(`${wb.emulator.baseUrl}/agents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${wb.emulator.tokens.default}`, 'content-type': 'application/json' },
    body: JSON.stringify({ appId: 'app_todo', prompt, model: 'hosted/fast', ...fields }),
  });
  const text = await res.text();
  assert.equal(res.status, 201, `POST /agents answered ${res.status}: ${text}`);
  return (JSON.parse(text) as { agentId: string }).agentId;
}
