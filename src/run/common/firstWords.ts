// The first words of a prompt, for a one-line notice (the Runs view, the start notices).

/** "Fix the login test and…" (`max` characters at most). */
export function firstWords(prompt: string, max = 50): string {
  const line = prompt.split(/\r?\n/).find((l) => l.trim() !== '')?.trim() ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
