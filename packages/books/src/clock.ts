/** Milliseconds since the epoch; injected so tests can move time without sleeping. */
export type Clock = () => number;
