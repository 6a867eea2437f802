/** Default time a helper waits for the UI, in ms. */
export const UI_TIMEOUT_MS = 15_000;
