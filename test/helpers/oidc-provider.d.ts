// The parts of oidc-provider (which ships no types) that the loopback identity provider of the SSO tests uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface InteractionDetails {
    uid: string;
    prompt: { name: string; details: Record<string, unknown> };
    params: Record<string, unknown> & { client_id: string };
    grantId?: string;
  }
  interface Grant {
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }
  class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
    interactionFinished(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>, options?: { mergeWithLastSubmission?: boolean }): Promise<void>;
    Grant: { new (opts: { accountId: string; clientId: string }): Grant; find(id: string): Promise<Grant | undefined> };
    proxy: boolean;
    /** Koa middleware run around the provider's own routes (its documented pre- and post-processing hook). */
    use(fn: (ctx: { path: string; method: string; status: number; body: unknown }, next: () => Promise<void>) => Promise<void>): this;
  }
  export default Provider;
}
