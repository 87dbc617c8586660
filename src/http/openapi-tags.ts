/**
 * The OpenAPI document's tags, each with what its operations are about. A route names one by key
 * (RouteDef.tag), so an operation cannot carry a tag the document does not describe; the document lists
 * the tags its operations use, in this order.
 */
export const TAGS = {
  Generations: 'Generations of every modality: one endpoint per modality, then listing, reading, cancelling, retrying and following them, and quoting a request before it is sent.',
  Compatible: "Paths in another API's documented shape (OpenAI's, Anthropic's), so that their official SDKs and the clients built on them work unchanged; each is a generation like any other.",
  Comparisons: 'One prompt run on several models side by side, as child generations of one comparison.',
  Models: 'The catalog: the models an organization may use, their parameters, prices and announced ends of life.',
  Uploads: 'Input files (images, audio) uploaded once and referred to by id in generation requests.',
  Files: "Generated outputs and uploads, served from mmgen's blob store.",
  Wallet: "The organization's credit balance and what running work holds of it.",
  Billing: 'Buying credits through Stripe Checkout, the saved card and auto top-up, and the history of payments, refunds and disputes.',
  Requests: "The request log: every /v1 call of the organization (refused ones too) with its status, error code, latency and cost, searched and exported.",
  Usage: 'Generations, credits and spend, by day, model or key, with a breakdown.',
  Webhooks: 'Endpoints that receive signed events, and the log of every delivery and its attempts.',
  'API keys': "The organization's API keys: their roles, scopes, IP allowlists and monthly budgets.",
  Audit: "The organization's audit log: who changed what (keys, budgets, webhooks, policies, settings, money), when, from where, before and after, in a tamper-evident hash chain.",
  People: 'Accounts and the dashboard session (sign-in with a password or a passkey, sign-out, switching organization), passkeys, members and their roles, invitations.',
  Organization: "The organization of the calling key: its plan and limits, its pause, its budget, its moderation policy and its data policy (payload capture, redaction, retention).",
  Operations: 'Liveness, readiness and Prometheus metrics, for the operator of the deployment.',
  Meta: 'The API described: this OpenAPI document.',
  Admin: "The operator's API, outside the organizations' document: the catalog, margins, model access and their audit.",
} as const satisfies Record<string, string>;

export type Tag = keyof typeof TAGS;

/** The document's top-level `tags`: those its operations use, described, in the order above. */
export function tagsOf(used: Iterable<string>): { name: Tag; description: string }[] {
  const set = new Set(used);
  return (Object.keys(TAGS) as Tag[]).filter((t) => set.has(t)).map((name) => ({ name, description: TAGS[name] }));
}
