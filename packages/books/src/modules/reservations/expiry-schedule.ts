import type { FastifyInstance } from 'fastify';

/**
 * Runs `expire` every `intervalMs` while the app is up, so overdue READY reservations expire (and
 * their copies go to the next in the queue) even when nobody reads them. Reads expire lazily as well.
 * A failed run is logged and retried at the next tick; runs never overlap.
 */
export function expirySchedule(
  app: FastifyInstance,
  expire: () => Promise<number>,
  intervalMs: number,
): void {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const tick = () => {
    if (running !== undefined) return;
    running = expire()
      .then((books) => {
        if (books > 0) app.log.info({ books }, 'expired overdue READY reservations');
      })
      .catch((error: unknown) =>
        app.log.warn({ err: error }, 'reservation expiry failed; retrying at the next tick'),
      )
      .finally(() => {
        running = undefined;
      });
  };
  app.addHook('onReady', async () => {
    timer = setInterval(tick, intervalMs);
    timer.unref();
  });
  app.addHook('onClose', async () => {
    clearInterval(timer);
    await running;
  });
}
