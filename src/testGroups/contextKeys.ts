/**
 * Context keys for where the test-group menus appear. A `when` clause cannot read a setting, so
 * package.json matches the default globs (kept in sync by a unit test) and nothing is compiled at
 * activation; only custom patterns need these keys, which come a moment late.
 */
import * as vscode from 'vscode';
import { SETTING_ID_PATTERN, SETTING_PATTERNS, hasCustomPatterns, testFileMatcher } from './settings';
import type { TestFileMatcher } from './common/testIds/testFileGlobs';

export const IS_TEST_FILE_KEY = 'agentRuns.isTestFile';
export const CUSTOM_PATTERNS_KEY = 'agentRuns.testFiles.customPatterns';

export function isTestFileUri(uri: vscode.Uri | undefined, matcher = testFileMatcher()): boolean {
  if (!uri || uri.scheme === 'output' || uri.scheme === 'vscode-settings') return false;
  // Outside the workspace asRelativePath returns the whole path, which `**/…` globs still match.
  return matcher.matches(vscode.workspace.asRelativePath(uri, false));
}

export class TestFileContextKeys implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  /** The configured patterns, compiled; none while they are the defaults. */
  private matcher: TestFileMatcher | undefined;
  private last: boolean | undefined;

  /** `checkPatternSetting`: compiling the test-ID pattern is the scanning code's (dist/testGroups.js). */
  constructor(private readonly checkPatternSetting: () => void) {
    this.disposables.push(
      vscode.window.onDidChangeActiveTextEditor(() => this.updateActive()),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.updateActive(true)),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(SETTING_PATTERNS)) this.readPatterns(true);
        // Compiling the pattern is the scanning code's business: it loads on this first change.
        if (e.affectsConfiguration(SETTING_ID_PATTERN)) this.checkPatternSetting();
      }),
    );
    this.readPatterns(false);
  }

  /** `changed`: the setting changed, so keys set for earlier patterns are set again (or cleared). */
  private readPatterns(changed: boolean): void {
    const custom = hasCustomPatterns();
    const had = this.matcher !== undefined;
    this.matcher = custom ? testFileMatcher() : undefined;
    if (custom || had || changed) {
      void vscode.commands.executeCommand('setContext', CUSTOM_PATTERNS_KEY, custom);
      this.updateActive(true);
    }
  }

  private updateActive(force = false): void {
    if (!this.matcher && this.last === undefined) return;
    const value = this.matcher ? isTestFileUri(vscode.window.activeTextEditor?.document.uri, this.matcher) : false;
    if (!force && value === this.last) return;
    this.last = value;
    void vscode.commands.executeCommand('setContext', IS_TEST_FILE_KEY, value);
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
