import { paginate, type PagePromise } from '../core/pagination.js';
import type { RequestOptions, Transport } from '../core/transport.js';
import type { AuditEvent, AuditEventListParams } from '../types.js';

/** The organization's audit log (owner and admin keys). GET /v1/audit-events/export streams it as JSON Lines. */
export class AuditEvents {
  constructor(private readonly transport: Transport) {}

  /** GET /v1/audit-events: newest first, filtered by action, actor, target and time; `for await` walks every page. */
  list(params: AuditEventListParams = {}, options?: RequestOptions): PagePromise<AuditEvent> {
    return paginate<AuditEvent>(this.transport, '/v1/audit-events', params, options);
  }
}
