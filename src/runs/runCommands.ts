// The loader of the run commands' bundle (dist/runCommands.js), for dist/extension.js and the run model (dist/runs.js).
import { lazyBundle } from '../base/common/lazyBundle';
import type * as RunCommandsBundle from './commands/bundle';

/** The commands' bodies, the finished alert and the start notices' rows (./commands/bundle.ts): their first use. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const runCommands = lazyBundle(() => require('./runCommands.js') as typeof RunCommandsBundle);
