/** Default time a helper waits for the UI, in ms. */
export const UI_TIMEOUT_MS = 15_000;
/** Time a workbench gets to start (page drawn, extensions registered), in ms. */
export const START_TIMEOUT_MS = 60_000;
