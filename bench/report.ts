/**
 * Figures, their budgets and the two outputs: a Markdown table on stdout (pasted into the
 * "Latest results" of docs/PERFORMANCE.md) and test-results/bench.json for machines.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export type Section = 'activation' | 'size' | 'webview' | 'network' | 'history' | 'memory' | 'scan';
export type Status = 'PASS' | 'FAIL' | 'INFO' | 'ERROR';

export interface Budget {
  /** The figure passes when `value <op> limit`. */
  readonly op: '<' | '<=' | '==';
  readonly limit: number;
}

export interface Figure {
  readonly section: Section;
  readonly name: string;
  /** undefined when the measurement could not be made (status ERROR). */
  readonly value: number | undefined;
  readonly unit: string;
  readonly budget?: Budget;
  /** How the budget reads in the table when it is not just `op limit unit` (e.g. "≤ 2 × floor"). */
  readonly budgetText?: string;
  readonly status: Status;
  /** Method, samples or the reason of a FAIL/ERROR: printed under the table and kept in the JSON. */
  readonly note?: string;
  readonly samples?: readonly number[];
}

export function judge(value: number, budget: Budget): Status {
  switch (budget.op) {
    case '<':
      return value < budget.limit ? 'PASS' : 'FAIL';
    case '<=':
      return value <= budget.limit ? 'PASS' : 'FAIL';
    case '==':
      return value === budget.limit ? 'PASS' : 'FAIL';
  }
}

export interface FigureInput {
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  readonly budget?: Budget;
  readonly budgetText?: string;
  readonly note?: string;
  readonly samples?: readonly number[];
}

/** Collects the figures of one run. */
export class Report {
  readonly figures: Figure[] = [];
  readonly notes: string[] = [];

  add(section: Section, input: FigureInput): Figure {
    const figure: Figure = {
      section,
      ...input,
      status: input.budget ? judge(input.value, input.budget) : 'INFO',
    };
    this.figures.push(figure);
    return figure;
  }

  error(section: Section, name: string, error: unknown, budgetText?: string): void {
    const message = error instanceof Error ? error.message : String(error);
    this.figures.push({ section, name, value: undefined, unit: '', status: 'ERROR', note: message.split('\n')[0], ...(budgetText ? { budgetText } : {}) });
  }

  get failed(): boolean {
    return this.figures.some((f) => f.status === 'FAIL' || f.status === 'ERROR');
  }
}

export function formatNumber(value: number, unit: string): string {
  const digits = Math.abs(value) >= 100 || Number.isInteger(value) ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  const text = value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return unit ? `${text} ${unit}` : text;
}

function budgetCell(f: Figure): string {
  if (f.budgetText) {
    return f.budgetText;
  }
  if (!f.budget) {
    return '—';
  }
  const op = f.budget.op === '<=' ? '≤' : f.budget.op === '==' ? '=' : '<';
  return `${op} ${formatNumber(f.budget.limit, f.unit)}`;
}

const SECTION_TITLES: Record<Section, string> = {
  activation: 'Activation',
  size: 'Size',
  webview: 'Webview',
  network: 'Network',
  history: 'History',
  memory: 'Memory',
  scan: 'Scan',
};

export function markdownTable(figures: readonly Figure[]): string {
  const lines = ['| Area | Figure | Measured | Budget | Result |', '|---|---|---:|---|---|'];
  for (const f of figures) {
    const value = f.value === undefined ? 'n/a' : formatNumber(f.value, f.unit);
    const result = f.status === 'INFO' ? 'info' : `**${f.status}**`;
    lines.push(`| ${SECTION_TITLES[f.section]} | ${f.name} | ${value} | ${budgetCell(f)} | ${result} |`);
  }
  return lines.join('\n');
}

export interface Environment {
  readonly date: string;
  readonly cpus: number;
  readonly cpuModel: string;
  readonly memoryGB: number;
  readonly node: string;
  readonly platform: string;
  readonly loadAverageStart: readonly number[];
  loadAverageEnd?: readonly number[];
  codeServer?: string;
  chromium?: string;
  git?: string;
}

export function environment(): Environment {
  const cpus = os.cpus();
  return {
    date: new Date().toISOString(),
    cpus: cpus.length,
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    memoryGB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    loadAverageStart: os.loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

export function environmentLines(env: Environment): string[] {
  const load = (l: readonly number[] | undefined) => (l ? l.map((x) => x.toFixed(2)).join(' / ') : 'n/a');
  return [
    `- Date: ${env.date}; commit ${env.git ?? 'unknown'}`,
    `- Machine: ${env.cpus} × ${env.cpuModel}, ${env.memoryGB} GB RAM, ${env.platform}`,
    `- Node ${env.node}; code-server ${env.codeServer ?? 'n/a'}; Chromium ${env.chromium ?? 'n/a'}`,
    `- Load average (1/5/15 min) at start: ${load(env.loadAverageStart)}; at end: ${load(env.loadAverageEnd)}`,
  ];
}

export function writeJson(file: string, env: Environment, figures: readonly Figure[], notes: readonly string[], elapsedMs: number): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const summary: Record<Status, number> = { PASS: 0, FAIL: 0, ERROR: 0, INFO: 0 };
  for (const f of figures) {
    summary[f.status]++;
  }
  fs.writeFileSync(
    file,
    `${JSON.stringify({ version: 1, environment: env, elapsedMs: Math.round(elapsedMs), summary, figures, notes }, null, 2)}\n`,
  );
}
