import { Type } from '@sinclair/typebox';
import { buildOpenApi } from '../openapi.js';
import { defineRoute, type RouteDef } from '../route.js';
import { createKey, deleteKey, getCurrentKey, getKey, listKeys, updateKey } from './api-keys.js';
import { chatCompletions } from './chat-completions.js';
import { openAiImageEdits, openAiImageGenerations } from './openai-images.js';
import { openAiSpeech } from './openai-speech.js';
import { createComparisonRoute, getComparisonRoute } from './comparisons.js';
import { usageRoute } from './usage.js';
import { getDataPolicy, updateDataPolicy } from './data-policy.js';
import { exportRequestsRoute, listRequestsRoute } from './requests.js';
import { generationEvents } from './generation-events.js';
import { MODALITY_ROUTES } from './generation-route.js';
import { cancelGenerationRoute, getGeneration, listGenerationsRoute, retryGenerationRoute } from './generations.js';
import { healthz, metrics, readyz } from './health.js';
import { createMessage } from './messages.js';
import { createResponse } from './responses.js';
import { getModel, listModels } from './models.js';
import { retrieveOrganization, updateOrganization } from './organization.js';
import { getModerationPolicy, updateModerationPolicyRoute } from './moderation.js';
import { retrieveWallet } from './wallet.js';
import { billingRoutes } from './billing.js';
import { getFile } from './files.js';
import { createQuote } from './quotes.js';
import { createUploadRoute, getUploadRoute, putUploadRoute } from './uploads.js';
import { webhookRoutes } from './webhooks.js';
import { adminRoutes } from './admin-catalog.js';
import { auditRoutes } from './audit-events.js';
import { peopleRoutes } from './people.js';
import { ssoRoutes } from './sso.js';
import { passkeyRoutes } from './passkeys.js';
import { signUpRoutes } from './sign-up.js';

/** Every route of the API, in the order the OpenAPI document lists them. */
export function allRoutes(): RouteDef[] {
  const { image, video, voice, music, avatar, chat, '3d': threeD, upscale, ...unplaced } = MODALITY_ROUTES;
  // A new modality's endpoint is placed in the document below: until it is, this does not compile.
  unplaced satisfies Record<string, never>;
  const routes = [
    listModels,
    getModel,
    retrieveOrganization,
    updateOrganization,
    getDataPolicy,
    updateDataPolicy,
    getModerationPolicy,
    updateModerationPolicyRoute,
    retrieveWallet,
    ...billingRoutes,
    createKey,
    listKeys,
    getCurrentKey,
    getKey,
    updateKey,
    deleteKey,
    ...peopleRoutes,
    ...passkeyRoutes,
    ...signUpRoutes,
    ...ssoRoutes,
    image,
    video,
    voice,
    music,
    avatar,
    chat,
    chatCompletions,
    openAiImageGenerations,
    openAiImageEdits,
    openAiSpeech,
    createMessage,
    createResponse,
    threeD,
    upscale,
    getGeneration,
    listGenerationsRoute,
    cancelGenerationRoute,
    retryGenerationRoute,
    generationEvents,
    createComparisonRoute,
    getComparisonRoute,
    createQuote,
    usageRoute,
    listRequestsRoute,
    exportRequestsRoute,
    ...webhookRoutes,
    ...auditRoutes,
    createUploadRoute,
    getUploadRoute,
    putUploadRoute,
    getFile,
    healthz,
    readyz,
    metrics,
  ] as RouteDef[];
  let doc: Record<string, unknown> | undefined;
  routes.push(
    defineRoute({
      method: 'GET',
      path: '/v1/openapi.json',
      operationId: 'getOpenApi',
      summary: 'This OpenAPI 3.1 document',
      description:
        'Every operation of the organizations\' API with its schemas, roles and scopes (`x-mmgen-role`, `x-mmgen-scope`) and modality facts (`x-mmgen-modality`): the source the SDK\'s types and the dashboard are built from. Public, no key needed.',
      tag: 'Meta',
      auth: null,
      schema: { response: { 200: Type.Object({}, { additionalProperties: true }) } },
      handler: async ({ deps }) => {
        doc ??= buildOpenApi(routes, deps.config.publicUrl);
        return { status: 200, body: doc };
      },
    }) as RouteDef,
  );
  // The operator's API: served, but documented apart (/v1/admin/openapi.json), outside the organizations' document.
  return [...routes, ...adminRoutes()];
}
