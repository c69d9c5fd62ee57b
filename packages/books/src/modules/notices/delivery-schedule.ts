import type { FastifyInstance } from 'fastify';
import type { NoticeDelivery } from './delivery.js';

/**
 * Runs the delivery worker while the app is up: a round after another while rounds come back full,
 * else one every `pollMs`. A failed round (the database away) is logged and retried after `pollMs`.
 * Closing the app waits for the round in flight, so no notice is left claimed by a clean stop.
 */
export function deliverySchedule(
  app: FastifyInstance,
  delivery: NoticeDelivery,
  batchSize: number,
  pollMs: number,
): void {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const round = async () => {
    try {
      const { claimed, failed } = await delivery.deliverDue();
      if (failed > 0) app.log.warn({ failed }, 'notices failed for good; an admin can resend them');
      return claimed === batchSize;
    } catch (error) {
      app.log.warn({ err: error }, 'notice delivery failed; retrying at the next poll');
      return false;
    }
  };
  const next = (full: boolean) => {
    if (stopped) return;
    timer = setTimeout(run, full ? 0 : pollMs);
    timer.unref();
  };
  const run = () => {
    running = round().then(next);
  };
  app.addHook('onReady', async () => run());
  app.addHook('onClose', async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  });
}
