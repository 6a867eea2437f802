// The steps of "Create Test Group" (IDs, name, description, app ID) as the quick input shows
// them, for the UI tests that walk through it (testGroups, testing).
import { waitUntil } from '../support/processes';
import { UI_TIMEOUT_MS } from './timeouts';
import type { Workbench } from './harness';

async function quickInputTitle(wb: Workbench): Promise<string> {
  return wb.page.locator('.quick-input-widget .quick-input-title').innerText().catch(() => '');
}

/** Waits until the create flow shows step `step` of 4 (in the title or the step count). */
export async function waitForStep(wb: Workbench, step: number): Promise<void> {
  const count = wb.page.locator('.quick-input-widget .quick-input-count, .quick-input-widget .quick-input-step');
  await waitUntil(async () => {
    if (!(await wb.page.locator('.quick-input-widget').isVisible())) return false;
    const title = await quickInputTitle(wb);
    const steps = await count.allInnerTexts().catch(() => []);
    return title.includes(`${step}/4`) || steps.some((s) => s.includes(`${step}/4`));
  }, UI_TIMEOUT_MS, `step ${step}/4 of the create flow`);
}
