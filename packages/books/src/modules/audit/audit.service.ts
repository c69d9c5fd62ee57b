import type { AuditRepository } from './audit.repository.js';
import type { AuditEvent, AuditFilter } from './audit-event.js';

/** The audit log for admins (the contract's guard has checked the role). */
export class AuditService {
  constructor(private readonly audit: AuditRepository) {}

  list(
    filter: AuditFilter,
    page: { page: number; size: number },
  ): Promise<{ items: AuditEvent[]; total: number }> {
    return this.audit.page(filter, page);
  }
}
