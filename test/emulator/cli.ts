/**
 * `npm run emulator [-- --port 8787 --step-ms 1000 --preset real --quiet]`: runs the emulator
 * in real time at demo speed until Ctrl+C. The port comes from `--port`, else `PORT`, else an
 * ephemeral one. `--preset real` turns on a real deployment's habits, `--preset deployed`
 * those habits with the deployed service's shapes (see settings.ts); `--wider A` or `--wider B`
 * serves an older published version of the wider API where it differs (default C, the newest).
 */
import { startEmulator } from './index';
import { DIRECTIVES } from './runs';
import { isPresetName, PRESET_NAMES, type PresetName } from './settings';
import { DEFAULT_WIDER, isWiderVersion, WIDER_VERSIONS, type WiderVersion } from './testDomain';

interface CliOptions {
  port: number;
  stepMs: number;
  quiet: boolean;
  preset: PresetName;
  wider: WiderVersion;
}

function parseArgs(argv: readonly string[], env: NodeJS.ProcessEnv): CliOptions {
  const value = (name: string): string | undefined => {
    const i = argv.findIndex((a) => a === name || a.startsWith(`${name}=`));
    if (i < 0) return undefined;
    const arg = argv[i];
    return arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[i + 1];
  };
  const integer = (text: string | undefined, name: string, fallback: number): number => {
    if (text === undefined || text === '') return fallback;
    const n = Number(text);
    if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${text}"`);
    return n;
  };
  const preset = value('--preset') ?? 'reference';
  if (!isPresetName(preset)) throw new Error(`--preset must be one of ${PRESET_NAMES.join(', ')}, got "${preset}"`);
  const wider = value('--wider') ?? DEFAULT_WIDER;
  if (!isWiderVersion(wider)) throw new Error(`--wider must be one of ${WIDER_VERSIONS.join(', ')}, got "${wider}"`);
  return {
    wider,
    port: integer(value('--port') ?? env.PORT, '--port/PORT', 0),
    stepMs: integer(value('--step-ms'), '--step-ms', 1000) || 1000,
    quiet: argv.includes('--quiet'),
    preset,
  };
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2), process.env);
  const emulator = await startEmulator({ port: options.port, stepMs: options.stepMs, clock: 'real', quiet: options.quiet, preset: options.preset, wider: options.wider });
  const directives = DIRECTIVES.map((d) => `[[${d}]]`).join(' ');
  console.log([
    'Agent Runs service emulator is running.',
    `  Base URL:  ${emulator.baseUrl}`,
    `  Token:     ${emulator.tokens.default}`,
    `  Admin:     ${emulator.adminUrl}`,
    `  Preset:    ${options.preset} ${JSON.stringify(emulator.state.settings)}${emulator.state.settings.shapes === 'deployed' ? ` (wider API: version ${options.wider})` : ''}`,
    `Hint: set "agentRuns.baseUrl" to the Base URL, give the extension the token, start a run on app_todo with model hosted/auto; add ${directives} to a prompt for other paths. Ctrl+C stops.`,
  ].join('\n'));

  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    void emulator.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(`Emulator failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
