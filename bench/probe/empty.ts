/**
 * The floor of the activation measurement: an extension that does nothing, packaged,
 * installed and activated (onStartupFinished) exactly like Agent Runs. Like Agent Runs it
 * returns how long its activate() took, measured the same way.
 */
export function activate(): { activationMs: number } {
  const started = performance.now();
  return { activationMs: performance.now() - started };
}

export function deactivate(): void {
  // nothing to release
}
