import type { Clock } from '../../clock.js';

/** What one expiry probe did and found. */
export interface ExpiryProbeResult {
  /** Books whose overdue READY reservations it expired (and whose queues it promoted). */
  settled: number;
  /** The earliest pickup deadline still ahead of the probe's time; null when no reservation is READY. */
  nextDeadline: Date | null;
}

/**
 * Keeps the guarantee "no reader sees a READY reservation past its pickup deadline" without a query
 * on every read. A deadline can only pass when the clock reaches it, and every deadline is set
 * `pickupMs` after the moment its reservation became READY; so after a probe (which expires what is
 * overdue and learns the earliest deadline left), reads need no probe until the clock reaches the
 * first of:
 *
 * - the earliest deadline the probe found;
 * - the deadline of a reservation this process made READY since (`madeReady`, after each write that
 *   settles a book: its deadline is `pickupMs` after that write's time);
 * - the probe's time plus `trustMs` (at most `pickupMs`), the bound for what ANOTHER process writes to
 *   the same database meanwhile: a reservation it makes READY after the probe has a deadline at least
 *   its own pickup period later, so as long as no replica's pickup period is shorter than `trustMs`
 *   (plus the clock skew between them), none of its deadlines can pass before this process probes
 *   again. The scheduled sweep probes every `trustMs` anyway, so reads rarely pay for a probe.
 *
 * Concurrent callers share one probe; a reader that joined a probe which started before its own time
 * probes again if a deadline fell in between.
 */
export class PickupExpiry {
  /** Clock time from which a read must probe first; -Infinity until the first probe. */
  private dueAt = Number.NEGATIVE_INFINITY;
  private probing: Promise<number> | undefined;
  /** Earliest deadline noted by `madeReady` while the running probe was out (it may not have seen them). */
  private notedDuringProbe = Number.POSITIVE_INFINITY;

  constructor(
    private readonly probe: (now: Date) => Promise<ExpiryProbeResult>,
    private readonly clock: Clock,
    private readonly pickupMs: number,
    private readonly trustMs: number,
  ) {
    if (!(trustMs > 0 && trustMs <= pickupMs)) {
      throw new Error(`the expiry probe's trust period (${trustMs} ms) must be in (0, pickup period]`);
    }
  }

  /** Before a read: expires overdue READY reservations when a deadline may have passed since the last probe. */
  async beforeRead(): Promise<void> {
    while (this.clock() >= this.dueAt) await this.expireOverdue();
  }

  /** Probes now (the schedule; a read through `beforeRead`): returns how many books it settled. */
  expireOverdue(): Promise<number> {
    if (this.probing !== undefined) return this.probing;
    const started = this.clock();
    this.notedDuringProbe = Number.POSITIVE_INFINITY;
    // Reservations the probe itself promotes get deadlines `pickupMs` after `started`: covered by trustMs.
    this.probing = this.probe(new Date(started))
      .then(({ settled, nextDeadline }) => {
        this.dueAt = Math.min(
          nextDeadline?.getTime() ?? Number.POSITIVE_INFINITY,
          started + this.trustMs,
          this.notedDuringProbe,
        );
        return settled;
      })
      .finally(() => {
        this.probing = undefined;
      });
    return this.probing;
  }

  /**
   * After a write that settled a book at `at` (and so may have made reservations READY, with deadlines
   * `pickupMs` later), whether or not it committed: an earlier due time only costs a probe.
   */
  madeReady(at: Date): void {
    const deadline = at.getTime() + this.pickupMs;
    this.dueAt = Math.min(this.dueAt, deadline);
    this.notedDuringProbe = Math.min(this.notedDuringProbe, deadline);
  }
}
