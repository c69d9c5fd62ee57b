import type { Queryable } from '../../db/database.js';

/**
 * Names who makes the changes of this transaction and at what time, for the audit triggers of
 * migration 008 (settings local to the transaction). `actorId` null is the system: the sweeps.
 * Called first in every writing transaction.
 */
export async function actingAs(tx: Queryable, actorId: string | null, now: Date): Promise<void> {
  await tx.query("select set_config('books.actor', $1, true), set_config('books.now', $2, true)", [
    actorId ?? '',
    now.toISOString(),
  ]);
}
