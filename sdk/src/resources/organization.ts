import type { APIPromise } from '../core/api-promise.js';
import type { RequestOptions, Transport } from '../core/transport.js';
import type { Organization, OrganizationUpdateParams, Wallet } from '../types.js';

export class OrganizationResource {
  constructor(private readonly transport: Transport) {}

  /** GET /v1/organization: the organization of the calling key. */
  get(options?: RequestOptions): APIPromise<Organization> {
    return this.transport.request({ method: 'GET', path: '/v1/organization', retry: 'idempotent' }, options);
  }

  /** PATCH /v1/organization (owner keys): pause or unpause. */
  update(params: OrganizationUpdateParams, options?: RequestOptions): APIPromise<Organization> {
    return this.transport.request({ method: 'PATCH', path: '/v1/organization', body: params, retry: 'idempotent' }, options);
  }
}

export class WalletResource {
  constructor(private readonly transport: Transport) {}

  /** GET /v1/wallet: balance, held and available credits (1 credit = US$0.001). */
  get(options?: RequestOptions): APIPromise<Wallet> {
    return this.transport.request({ method: 'GET', path: '/v1/wallet', retry: 'idempotent' }, options);
  }
}
