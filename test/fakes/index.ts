import { CATALOG } from '../../src/catalog/models.js';
import type { Modality, ProviderName } from '../../src/catalog/index.js';
import { shippedRecord } from '../../src/providers/upstream-models.js';
import { AnthropicFake } from './anthropic.js';
import { ElevenLabsFake } from './elevenlabs.js';
import { FalFake } from './fal.js';
import type { FakeKind } from './media.js';
import { OpenAiFake } from './openai.js';
import { ReplicateFake } from './replicate.js';

export { AnthropicFake, ElevenLabsFake, FalFake, OpenAiFake, ReplicateFake };
export type { FakeKind };

const KIND_OF_MODALITY: Record<Modality, FakeKind> = {
  image: 'image', video: 'video', avatar: 'video', music: 'audio', voice: 'speech', '3d': 'mesh', upscale: 'upscale', chat: 'image',
};

/** What an upstream model produces, from the catalog's routes (job APIs serve many kinds under one API). */
export function kindOfUpstream(upstream: string): FakeKind {
  // An endpoint's sibling (fal's …/image-to-video beside …/text-to-video) produces what the endpoint does.
  const siblingOf = (r: { provider: ProviderName; upstream: string }) => {
    const call = shippedRecord(r.provider, r.upstream)?.call;
    return call?.with_image === upstream || call?.without_image === upstream;
  };
  const model = CATALOG.find((m) => m.routes.some((r) => r.upstream === upstream || upstream.startsWith(`${r.upstream}`) || siblingOf(r)));
  return model ? KIND_OF_MODALITY[model.modality] : 'image';
}

export interface Fakes {
  openai: OpenAiFake;
  anthropic: AnthropicFake;
  replicate: ReplicateFake;
  fal: FalFake;
  elevenlabs: ElevenLabsFake;
  /** Each fake by the provider it plays, with the requests it refused for breaking their model's record. */
  byProvider: ReadonlyMap<string, { refused: ReadonlyArray<{ violations: unknown }> }>;
  /** The environment that points mmgen at every fake. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** All five fakes on loopback ports, and the env variables that point mmgen at them. */
export async function startFakes(opts: { jobMs?: number } = {}): Promise<Fakes> {
  const [openai, anthropic, replicate, fal, elevenlabs] = await Promise.all([
    new OpenAiFake().start(),
    new AnthropicFake().start(),
    new ReplicateFake({ kindOf: kindOfUpstream, ...(opts.jobMs !== undefined ? { jobMs: opts.jobMs } : {}) }).start(),
    new FalFake({ kindOf: kindOfUpstream, ...(opts.jobMs !== undefined ? { jobMs: opts.jobMs } : {}) }).start(),
    new ElevenLabsFake().start(),
  ]);
  return {
    openai, anthropic, replicate, fal, elevenlabs,
    byProvider: new Map(Object.entries({ openai, anthropic, replicate, fal, elevenlabs })),
    env: {
      OPENAI_API_KEY: openai.key, OPENAI_BASE_URL: openai.baseUrl,
      ANTHROPIC_API_KEY: anthropic.key, ANTHROPIC_BASE_URL: anthropic.baseUrl,
      REPLICATE_API_TOKEN: replicate.key, REPLICATE_BASE_URL: replicate.baseUrl,
      FAL_KEY: fal.key, FAL_BASE_URL: fal.baseUrl,
      // fal publishes its schemas and its list on hosts of their own; the fake serves both beside its queue.
      FAL_OPENAPI_URL: `${fal.url}/openapi/queue/openapi.json`, FAL_PLATFORM_URL: `${fal.url}/v1`,
      ELEVENLABS_API_KEY: elevenlabs.key, ELEVENLABS_BASE_URL: elevenlabs.baseUrl,
    },
    close: async () => {
      await Promise.all([openai.close(), anthropic.close(), replicate.close(), fal.close(), elevenlabs.close()]);
    },
  };
}
