import type { FastifyInstance } from 'fastify';

/** The sweeps: each returns how much it did (books settled, loans recorded overdue). */
export interface Sweeps {
  expire: () => Promise<number>;
  recordOverdue: () => Promise<number>;
  /** Queues the reminders time causes (pickup deadline tomorrow, loan due soon). */
  queueReminders: () => Promise<number>;
  /** Deletes Idempotency-Keys past their 24 h. */
  purgeIdempotencyKeys: () => Promise<number>;
}

/**
 * Runs the sweeps every `intervalMs` while the app is up, so READY reservations past their deadline
 * expire (and their copies go to the next in the queue) even when nobody reads them (reads expire them
 * lazily as well), loans past their due date are recorded as overdue (the system's audit events and
 * their notices), the reminders that time causes are queued (once each), and
 * Idempotency-Keys past their retention are deleted.
 * A failed run is logged and retried at the next tick; runs never overlap.
 */
export function expirySchedule(
  app: FastifyInstance,
  { expire, recordOverdue, queueReminders, purgeIdempotencyKeys }: Sweeps,
  intervalMs: number,
): void {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const tick = () => {
    if (running !== undefined) return;
    running = expire()
      .then(async (books) => {
        if (books > 0) app.log.info({ books }, 'expired overdue READY reservations');
        const loans = await recordOverdue();
        if (loans > 0) app.log.info({ loans }, 'recorded overdue loans');
        const reminders = await queueReminders();
        if (reminders > 0) app.log.info({ reminders }, 'queued reminders');
        await purgeIdempotencyKeys();
      })
      .catch((error: unknown) =>
        app.log.warn(
          { err: error },
          'reservation expiry or the overdue sweep failed; retrying at the next tick',
        ),
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
