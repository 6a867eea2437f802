// The packaged extension in the real workbench, as a person first meets it.
import * as assert from 'node:assert/strict';
import { localize, readManifest, type ContributedCommand } from '../support/paths';
import { useWorkbench } from './harness';

/** Manifest fields only this test reads. */
interface ManifestExtras {
  readonly displayName?: string;
  readonly activationEvents?: readonly string[];
  readonly contributes?: { readonly viewsContainers?: { readonly activitybar?: readonly { readonly title: string }[] } };
}

describe('Workbench with the packaged extension [both versions]', () => {
  const workbench = useWorkbench({ name: 'workbench' });

  it('loads the workbench with the extension activated', async () => {
    const wb = workbench();
    const dir = wb.session.extension.path;
    const manifest = readManifest(dir) as ReturnType<typeof readManifest> & ManifestExtras;
    assert.ok(await wb.page.locator('.part.activitybar').isVisible(), 'the activity bar is not visible');
    // The extension's own activity bar icons appear once the extension host has registered it.
    for (const container of manifest.contributes?.viewsContainers?.activitybar ?? []) {
      const title = localize(container.title, dir);
      await wb.page.locator(`.part.activitybar .action-label[aria-label^="${title}"]`).first().waitFor({ state: 'visible' });
    }
    const events = manifest.activationEvents ?? [];
    if (events.includes('onStartupFinished') || events.includes('*')) {
      await wb.waitForExtensionActivation();
    }
    await wb.screenshot('workbench-loaded');
  });

  it("shows the extension's view container", async function () {
    const wb = workbench();
    const dir = wb.session.extension.path;
    const manifest = readManifest(dir) as ReturnType<typeof readManifest> & ManifestExtras;
    const container = manifest.contributes?.viewsContainers?.activitybar?.[0];
    if (!container) {
      this.skip();
    }
    const title = localize(container.title, dir);
    await wb.openActivityBarView(title);
    const sideBarTitle = await wb.page.locator('.part.sidebar .composite.title').innerText();
    assert.match(sideBarTitle, new RegExp(title, 'i'));
    await wb.screenshot('extension-view');
    await wb.openActivityBarView('Explorer');
  });

  it('lists Agent Runs among the installed extensions', async () => {
    const wb = workbench();
    const dir = wb.session.extension.path;
    const manifest = readManifest(dir) as ReturnType<typeof readManifest> & ManifestExtras;
    const displayName = localize(manifest.displayName ?? manifest.name, dir);
    await wb.openActivityBarView('Extensions');
    await wb.page
      .locator('.extensions-list .monaco-list-row', { hasText: displayName })
      .first()
      .waitFor({ state: 'visible', timeout: 20_000 });
    await wb.screenshot('installed-extensions');
  });

  it("offers the extension's commands in the command palette, titled", async function () {
    const wb = workbench();
    const dir = wb.session.extension.path;
    const manifest = readManifest(dir);
    // Commands with a commandPalette entry are hidden or shown conditionally; the others
    // are always in the palette, under their localized "Category: Title".
    const conditional = new Set((manifest.contributes?.menus?.commandPalette ?? []).map((entry) => entry.command));
    const always = (manifest.contributes?.commands ?? []).filter((c) => !conditional.has(c.command));
    if (always.length === 0) {
      this.skip();
    }
    const paletteTitle = (c: ContributedCommand) =>
      c.category ? `${localize(c.category, dir)}: ${localize(c.title, dir)}` : localize(c.title, dir);
    for (const command of always) {
      const title = paletteTitle(command);
      assert.ok(!title.includes('%'), `${command.command} has an untranslated title: ${title}`);
      await wb.findCommandPaletteEntry(title);
    }
    // What a person sees after typing the category.
    await wb.findCommandPaletteEntry(paletteTitle(always[0]));
    await wb.page.locator('.quick-input-widget .quick-input-box input').fill(`>${always[0].category ? localize(always[0].category, dir) : ''}`);
    await wb.screenshot('command-palette');
    await wb.closeQuickInput();
  });
});
