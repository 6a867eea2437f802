// The service emulator (test/emulator), started in the launcher's own process on
// 127.0.0.1 with an ephemeral port and stopped by the cleanup machinery whatever happens.
import { startEmulator as start, type Emulator, type EmulatorOptions } from '../emulator/index';
import { registerCleanup } from './processes';
import type { EmulatorInfo } from './testContext';

export type { Emulator } from '../emulator/index';

export interface HarnessEmulatorOptions {
  /** How long each simulated step of a run takes: ~30 ms in tests, 1000 ms for the demo. */
  readonly stepMs: number;
  /** Print one line per API request (the demo's --verbose). */
  readonly logRequests?: boolean;
  readonly seed?: EmulatorOptions['seed'];
  /** The emulator's preset (`reference` by default; the demo uses `deployed`). */
  readonly preset?: EmulatorOptions['preset'];
}

/** Starts the emulator with a real clock; it is closed at cleanup if nobody closes it first. */
export async function startEmulator(options: HarnessEmulatorOptions): Promise<Emulator> {
  const emulator = await start({
    port: 0,
    clock: 'real',
    stepMs: options.stepMs,
    quiet: options.logRequests !== true,
    ...(options.seed ? { seed: options.seed } : {}),
    ...(options.preset ? { preset: options.preset } : {}),
  });
  // close() is idempotent: a session may close it first, the cleanup then does nothing.
  registerCleanup('stop the emulator', () => emulator.close());
  return emulator;
}

/** The emulator's tokens as name/value pairs. */
function tokenEntries(tokens: Emulator['tokens']): [string, string][] {
  return (Object.keys(tokens) as (keyof Emulator['tokens'])[]).map((key) => [key, tokens[key]]);
}

/** The emulator's token by name (`default`, `scoped`, ...), or undefined. */
export function emulatorToken(emulator: Emulator, name: string): string | undefined {
  return tokenEntries(emulator.tokens).find(([key]) => key === name)?.[1];
}

/** The serialisable part, for the test context file. */
export function emulatorInfo(emulator: Emulator): EmulatorInfo {
  return {
    baseUrl: emulator.baseUrl,
    adminUrl: emulator.adminUrl,
    origin: emulator.origin,
    tokens: Object.fromEntries(tokenEntries(emulator.tokens)),
  };
}
