/** Unix time in whole seconds. Injected everywhere a window is computed, so tests control it. */
export type Clock = () => number;

export const systemClock: Clock = () => Math.floor(Date.now() / 1000);
