import type { APIPromise } from '../core/api-promise.js';
import type { RequestOptions, Transport } from '../core/transport.js';
import { segment } from '../core/util.js';
import type { CreatedInvitation, DeletedObject, Invitation, InvitationCreateParams, Member, MemberUpdateParams, RemovedMember } from '../types.js';

/** The organization's members: a member's role bounds the keys they made. */
export class Members {
  constructor(private readonly transport: Transport) {}

  /** GET /v1/members: every current member and their role. */
  list(options?: RequestOptions): APIPromise<{ object: 'list'; data: Member[]; has_more: boolean }> {
    return this.transport.request({ method: 'GET', path: '/v1/members', retry: 'idempotent' }, options);
  }

  get(id: string, options?: RequestOptions): APIPromise<Member> {
    return this.transport.request({ method: 'GET', path: `/v1/members/${segment(id)}`, retry: 'idempotent' }, options);
  }

  /**
   * PATCH /v1/members/{id}: a new role (their keys act with at most it from their next request; the last owner stays
   * owner, 409) and/or a monthly budget over all of their keys (`monthly_budget_usd`, `budget_action`).
   */
  update(id: string, params: MemberUpdateParams, options?: RequestOptions): APIPromise<Member> {
    return this.transport.request({ method: 'PATCH', path: `/v1/members/${segment(id)}`, body: params, retry: 'idempotent' }, options);
  }

  /** DELETE /v1/members/{id}: removes the member and revokes their keys, effective on their next request. */
  remove(id: string, options?: RequestOptions): APIPromise<RemovedMember> {
    return this.transport.request({ method: 'DELETE', path: `/v1/members/${segment(id)}`, retry: 'idempotent' }, options);
  }
}

/** Invitations by email; accepting one happens in the dashboard (POST /v1/invitations/accept, with no key). */
export class Invitations {
  constructor(private readonly transport: Transport) {}

  /** POST /v1/invitations: mailed when the server has SMTP; `url` is the link to copy, returned only here. */
  create(params: InvitationCreateParams, options?: RequestOptions): APIPromise<CreatedInvitation> {
    return this.transport.request({ method: 'POST', path: '/v1/invitations', body: params, retry: 'throttled-only' }, options);
  }

  list(options?: RequestOptions): APIPromise<{ object: 'list'; data: Invitation[]; has_more: boolean }> {
    return this.transport.request({ method: 'GET', path: '/v1/invitations', retry: 'idempotent' }, options);
  }

  /** DELETE /v1/invitations/{id}: its link stops working. */
  revoke(id: string, options?: RequestOptions): APIPromise<DeletedObject> {
    return this.transport.request({ method: 'DELETE', path: `/v1/invitations/${segment(id)}`, retry: 'idempotent' }, options);
  }
}
