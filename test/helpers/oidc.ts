import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface Person {
  sub: string;
  email: string;
  email_verified: boolean;
  name: string;
}

/**
 * A real OpenID provider (oidc-provider, a certified implementation) on a loopback port. Its login and consent
 * interaction signs in `loginAs` (set by the test before each sign-in) and grants the requested scopes, as a person
 * clicking through would. One confidential client, code flow only, PKCE required.
 */
export async function startOidcProvider(client: { clientId: string; clientSecret: string; redirectUri: string }): Promise<{
  issuer: string;
  people: Map<string, Person>;
  loginAs: { sub: string };
  /** When set, the token endpoint's id_token is replaced by what this makes of it (a forger between mmgen and the issuer). */
  tokenEndpoint: { rewriteIdToken: ((idToken: string) => Promise<string>) | null };
  close(): Promise<void>;
}> {
  const people = new Map<string, Person>();
  const loginAs = { sub: '' };
  const tokenEndpoint: { rewriteIdToken: ((idToken: string) => Promise<string>) | null } = { rewriteIdToken: null };
  const server: Server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [{
      client_id: client.clientId, client_secret: client.clientSecret, redirect_uris: [client.redirectUri],
      grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic',
    }],
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    scopes: ['openid', 'email', 'profile'],
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['loopback-test-cookie-key'] },
    findAccount: async (_ctx: unknown, id: string) => {
      const p = people.get(id);
      return p ? { accountId: id, claims: async () => ({ ...p }) } : undefined;
    },
  });
  provider.use(async (ctx, next) => {
    await next();
    const rewrite = tokenEndpoint.rewriteIdToken;
    const body = ctx.body as { id_token?: unknown } | null;
    if (rewrite && ctx.method === 'POST' && ctx.path === '/token' && ctx.status === 200 && typeof body?.id_token === 'string') {
      ctx.body = { ...body, id_token: await rewrite(body.id_token) };
    }
  });
  const handle = provider.callback();
  server.on('request', (req, res) => {
    if (!req.url?.startsWith('/interaction/')) return handle(req, res);
    void (async () => {
      const details = await provider.interactionDetails(req, res);
      const grant = new provider.Grant({ accountId: loginAs.sub, clientId: details.params.client_id });
      grant.addOIDCScope('openid email profile');
      const grantId = await grant.save();
      await provider.interactionFinished(req, res, { login: { accountId: loginAs.sub }, consent: { grantId } }, { mergeWithLastSubmission: false });
    })().catch((err: unknown) => {
      res.statusCode = 500;
      res.end(String(err));
    });
  });
  return { issuer, people, loginAs, tokenEndpoint, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** Follows redirects as a browser does (each origin its own cookies) until `stopAt`'s origin answers; that response is returned. */
export async function followToOrigin(start: string, stopAt: string): Promise<Response> {
  const jars = new Map<string, Map<string, string>>();
  let url = start;
  for (let i = 0; i < 20; i++) {
    const origin = new URL(url).origin;
    const jar = jars.get(origin) ?? new Map<string, string>();
    jars.set(origin, jar);
    const res = await fetch(url, { redirect: 'manual', headers: jar.size ? { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } : {} });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    if (origin === new URL(stopAt).origin) return res;
    const location = res.headers.get('location');
    if (!location) throw new Error(`${url} answered ${res.status} without a redirect: ${await res.text()}`);
    url = new URL(location, url).href;
  }
  throw new Error('too many redirects');
}
