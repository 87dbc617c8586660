/**
 * Named types for mmgen's requests and responses. Every one is derived from
 * the generated OpenAPI types (src/generated/openapi.ts), so they follow the
 * server's schemas and never drift from them.
 */
import type { operations } from './generated/openapi.js';
import type { ModelParameters } from './model-parameters.generated.js';

export type { operations, paths } from './generated/openapi.js';
export type * from './model-parameters.generated.js';

type OperationId = keyof operations;

/** The JSON request body of an operation. */
export type RequestBody<Op extends OperationId> = operations[Op] extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;

/** The JSON body of an operation's answer with `Status`. */
export type ResponseBody<Op extends OperationId, Status extends number = 200> = operations[Op]['responses'] extends infer R
  ? Status extends keyof R
    ? R[Status] extends { content: { 'application/json': infer B } }
      ? B
      : never
    : never
  : never;

/** The query parameters of an operation. */
export type QueryParams<Op extends OperationId> = NonNullable<operations[Op]['parameters']['query']>;

// Generations
export type Generation = ResponseBody<'getGeneration'>;
export type GenerationOutput = Generation['outputs'][number];
export type GenerationStatus = Generation['status'];
export type Modality = Generation['modality'];
export type GenerationListParams = QueryParams<'listGenerations'>;

export type ImageCreateParams = RequestBody<'createImage'>;
export type VideoCreateParams = RequestBody<'createVideo'>;
export type VoiceCreateParams = RequestBody<'createVoice'>;
export type MusicCreateParams = RequestBody<'createMusic'>;
export type AvatarCreateParams = RequestBody<'createAvatar'>;
export type ChatCreateParams = RequestBody<'createChat'>;
export type ThreeDCreateParams = RequestBody<'createThreeD'>;
export type UpscaleCreateParams = RequestBody<'createUpscale'>;

/** Each modality's request body (the body of its endpoint, MODALITY_ENDPOINTS). */
export interface ModalityCreateParams extends Record<Modality, unknown> {
  image: ImageCreateParams;
  video: VideoCreateParams;
  voice: VoiceCreateParams;
  music: MusicCreateParams;
  avatar: AvatarCreateParams;
  chat: ChatCreateParams;
  '3d': ThreeDCreateParams;
  upscale: UpscaleCreateParams;
}
/** One generation of any modality, as `generations.create` takes it: its modality's body, and `modality`. */
export type GenerationCreateParams = { [M in Modality]: { modality: M } & ModalityCreateParams[M] }[Modality];
/** The slugs of the models of a modality that this SDK knows the parameters of (model-parameters.generated.ts). */
export type KnownModel<Mod extends keyof ModelParameters> = keyof ModelParameters[Mod] & string;

/**
 * The request a create method takes for the model `M`: that model's own fields
 * (its `parameters` in GET /v1/models: enums as literal unions, required fields
 * required, no field it does not take) when the SDK knows the model, else the
 * endpoint's generic request (a model added to mmgen after this SDK was built,
 * an mdl_ id, or a slug that is only known at run time as a `string`).
 */
export type CreateParamsFor<Mod extends keyof ModelParameters, M extends string, Generic> = string extends M
  ? Generic
  : M extends KnownModel<Mod>
    ? ModelParameters[Mod][M]
    : Generic;

/** The answer of POST /v1/videos: the queued generation, plus `generation_id`. */
export type VideoGeneration = ResponseBody<'createVideo', 202>;
export type SimulateOptions = NonNullable<ImageCreateParams['simulate']>;

// Chat completions (OpenAI's shape)
export type ChatCompletionCreateParams = RequestBody<'createChatCompletion'>;
export type ChatCompletion = ResponseBody<'createChatCompletion'>;
/** One chunk of a `stream: true` chat completion (not described by the OpenAPI document, which has no schema for event streams). */
export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: Array<{ index: number; delta: { role?: 'assistant'; content?: string }; finish_reason: string | null; logprobs: null }>;
  usage?: ChatCompletion['usage'];
}

// Quotes
/** What POST /v1/quotes takes: a modality's request body, with `modality` (default: the model's). */
export type QuoteCreateParams = { [M in Modality]: { modality?: M } & ModalityCreateParams[M] }[Modality];
/** The credits a request would reserve if sent now with this key. */
export type Quote = ResponseBody<'createQuote'>;

// Comparisons
export type Comparison = ResponseBody<'getComparison'>;
export type ComparisonCreateParams = RequestBody<'createComparison'>;

// Models
export type ModelList = ResponseBody<'listModels'>;
export type Model = ResponseBody<'getModel'>;
export type ModelListParams = QueryParams<'listModels'>;

// Organization and wallet
export type Organization = ResponseBody<'getOrganization'>;
export type OrganizationUpdateParams = RequestBody<'updateOrganization'>;
export type Wallet = ResponseBody<'getWallet'>;

// API keys
export type ApiKey = ResponseBody<'getApiKey'>;
/** The answer of POST /v1/api-keys: the key record with its secret `key`, shown only here. */
export type CreatedApiKey = ResponseBody<'createApiKey', 201>;
export type ApiKeyCreateParams = RequestBody<'createApiKey'>;
export type ApiKeyUpdateParams = RequestBody<'updateApiKey'>;
export type ApiKeyListParams = QueryParams<'listApiKeys'>;
export type DeletedObject = ResponseBody<'deleteApiKey'>;

export type Member = ResponseBody<'getMember'>;
export type MemberUpdateParams = RequestBody<'updateMember'>;
export type RemovedMember = ResponseBody<'removeMember'>;
export type Invitation = ResponseBody<'listInvitations'>['data'][number];
export type CreatedInvitation = ResponseBody<'createInvitation', 201>;
export type InvitationCreateParams = RequestBody<'createInvitation'>;

// Webhooks
export type Webhook = ResponseBody<'getWebhook'>;
/** One row of the request log (GET /v1/requests). */
export type RequestRecord = ResponseBody<'listRequests'>['data'][number];
/** What the organization keeps and for how long (GET /v1/organization/data-policy). */
export type DataPolicy = ResponseBody<'getDataPolicy'>;
export type DataPolicyUpdateParams = RequestBody<'updateDataPolicy'>;
/** The answer of POST /v1/webhooks: the webhook with its `secret`, shown only here. */
export type CreatedWebhook = ResponseBody<'createWebhook', 201>;
export type WebhookCreateParams = RequestBody<'createWebhook'>;
export type WebhookUpdateParams = RequestBody<'updateWebhook'>;
export type WebhookListParams = QueryParams<'listWebhooks'>;
export type WebhookDelivery = ResponseBody<'getWebhookDelivery'>;
export type WebhookDeliveryListParams = QueryParams<'listWebhookDeliveries'>;
export type DeletedWebhook = ResponseBody<'deleteWebhook'>;

// The audit log
export type AuditEvent = ResponseBody<'listAuditEvents'>['data'][number];
export type AuditEventListParams = QueryParams<'listAuditEvents'>;

/** Buying credits through Stripe (GET /v1/billing), an entry of the payment history, and a Checkout's return check. */
export type Billing = ResponseBody<'getBilling'>;
export type BillingEntry = ResponseBody<'listPayments'>['data'][number];
export type CheckoutResult = ResponseBody<'getCheckout'>;

// Uploads
export type Upload = ResponseBody<'getUpload'>;
/** The answer of POST /v1/uploads: the pending upload with its presigned `upload_url`. */
export type CreatedUpload = ResponseBody<'createUpload', 201>;
export type UploadCreateParams = RequestBody<'createUpload'>;
export type UploadContentType = UploadCreateParams['content_type'];

// Usage
export type Usage = ResponseBody<'getUsage'>;
export type UsageParams = QueryParams<'getUsage'>;
