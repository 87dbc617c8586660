/* eslint-disable */
// Generated from the `parameters` of the models mmgen serves on 2026-11-24 by `npm run generate -w @mmgen/sdk`.
// Do not edit: a test fails when this file differs from what this checkout's catalog gives.

/** The catalog date these types were generated for. */
export type ModelParametersCatalogDate = "2026-11-24";

/** An input image, for a model that needs one (`anyOf` upload_id, image_url in its parameters). */
export type InputImage = { upload_id: string } | { image_url: string };

/** The image models and the request each takes (POST body), by slug. */
export interface ImageModelParameters {
  /** GPT Image 1 Mini. */
  "gpt-image-1-mini": {
    model: "gpt-image-1-mini";
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /**
     * upl_… of a completed upload.
     * At most 100 characters.
     */
    upload_id?: string;
    /**
     * An https URL mmgen fetches.
     * At most 4096 characters; format: uri.
     */
    image_url?: string;
    /** At most 4000 characters. */
    prompt: string;
    /**
     * 1 to 4; an integer.
     * @default 1
     */
    num_outputs?: number;
    /**
     * 256 to 2048; an integer; a multiple of 8.
     * @default 1024
     */
    width?: number;
    /**
     * 256 to 2048; an integer; a multiple of 8.
     * @default 1024
     */
    height?: number;
  };
  /** GPT Image 2. */
  "gpt-image-2": {
    model: "gpt-image-2";
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /**
     * upl_… of a completed upload.
     * At most 100 characters.
     */
    upload_id?: string;
    /**
     * An https URL mmgen fetches.
     * At most 4096 characters; format: uri.
     */
    image_url?: string;
    /** At most 4000 characters. */
    prompt: string;
    /**
     * 1 to 4; an integer.
     * @default 1
     */
    num_outputs?: number;
    /**
     * 256 to 2048; an integer; a multiple of 8.
     * @default 1024
     */
    width?: number;
    /**
     * 256 to 2048; an integer; a multiple of 8.
     * @default 1024
     */
    height?: number;
  };
  /** GPT Image 2.6 Sunburst. */
  "gpt-image-2.6-sunburst": {
    model: "gpt-image-2.6-sunburst";
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /**
     * upl_… of a completed upload.
     * At most 100 characters.
     */
    upload_id?: string;
    /**
     * An https URL mmgen fetches.
     * At most 4096 characters; format: uri.
     */
    image_url?: string;
    /** At most 4000 characters. */
    prompt: string;
    /**
     * 1 to 4; an integer.
     * @default 1
     */
    num_outputs?: number;
    /**
     * 256 to 2048; an integer; a multiple of 8.
     * @default 1024
     */
    width?: number;
    /**
     * 256 to 2048; an integer; a multiple of 8.
     * @default 1024
     */
    height?: number;
  };
  /** FLUX.1 [schnell]. */
  "flux-schnell": {
    model: "flux-schnell";
    /**
     * Makes the result reproducible and cacheable.
     * 0 to 4294967295; an integer.
     */
    seed?: number;
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** At most 4000 characters. */
    prompt: string;
    /**
     * 1 to 4; an integer.
     * @default 1
     */
    num_outputs?: number;
    /**
     * 256 to 2048; an integer; a multiple of 8.
     * @default 1024
     */
    width?: number;
    /**
     * 256 to 2048; an integer; a multiple of 8.
     * @default 1024
     */
    height?: number;
  };
  /** FLUX.1 [dev]. */
  "flux-dev": {
    model: "flux-dev";
    /**
     * Makes the result reproducible and cacheable.
     * 0 to 4294967295; an integer.
     */
    seed?: number;
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /**
     * upl_… of a completed upload.
     * At most 100 characters.
     */
    upload_id?: string;
    /**
     * An https URL mmgen fetches.
     * At most 4096 characters; format: uri.
     */
    image_url?: string;
    /** At most 4000 characters. */
    prompt: string;
    /**
     * 1 to 4; an integer.
     * @default 1
     */
    num_outputs?: number;
    /**
     * 256 to 2048; an integer; a multiple of 8.
     * @default 1024
     */
    width?: number;
    /**
     * 256 to 2048; an integer; a multiple of 8.
     * @default 1024
     */
    height?: number;
  };
  /** FLUX1.1 [pro]. */
  "flux-1.1-pro": {
    model: "flux-1.1-pro";
    /**
     * Makes the result reproducible and cacheable.
     * 0 to 4294967295; an integer.
     */
    seed?: number;
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** At most 4000 characters. */
    prompt: string;
    /**
     * 1 to 4; an integer.
     * @default 1
     */
    num_outputs?: number;
    /**
     * 256 to 1440; an integer; a multiple of 8.
     * @default 1024
     */
    width?: number;
    /**
     * 256 to 1440; an integer; a multiple of 8.
     * @default 1024
     */
    height?: number;
  };
  /** FLUX1.1 [pro] Ultra. */
  "flux-1.1-pro-ultra": {
    model: "flux-1.1-pro-ultra";
    /**
     * Makes the result reproducible and cacheable.
     * 0 to 4294967295; an integer.
     */
    seed?: number;
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /**
     * upl_… of a completed upload.
     * At most 100 characters.
     */
    upload_id?: string;
    /**
     * An https URL mmgen fetches.
     * At most 4096 characters; format: uri.
     */
    image_url?: string;
    /** At most 4000 characters. */
    prompt: string;
    /**
     * 1 to 4; an integer.
     * @default 1
     */
    num_outputs?: number;
    /**
     * 256 to 2048; an integer; a multiple of 8.
     * @default 1024
     */
    width?: number;
    /**
     * 256 to 2048; an integer; a multiple of 8.
     * @default 1024
     */
    height?: number;
  };
  /** FLUX.1 Kontext [pro]. */
  "flux-kontext-pro": {
    model: "flux-kontext-pro";
    /**
     * Makes the result reproducible and cacheable.
     * 0 to 4294967295; an integer.
     */
    seed?: number;
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /**
     * upl_… of a completed upload.
     * At most 100 characters.
     */
    upload_id?: string;
    /**
     * An https URL mmgen fetches.
     * At most 4096 characters; format: uri.
     */
    image_url?: string;
    /** At most 4000 characters. */
    prompt: string;
    /**
     * 1 to 4; an integer.
     * @default 1
     */
    num_outputs?: number;
    /**
     * 256 to 2048; an integer; a multiple of 8.
     * @default 1024
     */
    width?: number;
    /**
     * 256 to 2048; an integer; a multiple of 8.
     * @default 1024
     */
    height?: number;
  };
  /** Stable Diffusion 3.5 Large. */
  "stable-diffusion-3.5-large": {
    model: "stable-diffusion-3.5-large";
    /**
     * Makes the result reproducible and cacheable.
     * 0 to 4294967295; an integer.
     */
    seed?: number;
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /**
     * upl_… of a completed upload.
     * At most 100 characters.
     */
    upload_id?: string;
    /**
     * An https URL mmgen fetches.
     * At most 4096 characters; format: uri.
     */
    image_url?: string;
    /** At most 4000 characters. */
    prompt: string;
    /** At most 4000 characters. */
    negative_prompt?: string;
    /**
     * 1 to 4; an integer.
     * @default 1
     */
    num_outputs?: number;
    /**
     * 256 to 2048; an integer; a multiple of 8.
     * @default 1024
     */
    width?: number;
    /**
     * 256 to 2048; an integer; a multiple of 8.
     * @default 1024
     */
    height?: number;
  };
  /** Google Imagen 4. */
  "imagen-4": {
    model: "imagen-4";
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** At most 4000 characters. */
    prompt: string;
    /**
     * 256 to 2048; an integer; a multiple of 8.
     * @default 1024
     */
    width?: number;
    /**
     * 256 to 2048; an integer; a multiple of 8.
     * @default 1024
     */
    height?: number;
  };
  /** Nano Banana (Gemini 2.5 Flash Image). */
  "nano-banana": {
    model: "nano-banana";
    /**
     * Makes the result reproducible and cacheable.
     * 0 to 4294967295; an integer.
     */
    seed?: number;
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /**
     * upl_… of a completed upload.
     * At most 100 characters.
     */
    upload_id?: string;
    /**
     * An https URL mmgen fetches.
     * At most 4096 characters; format: uri.
     */
    image_url?: string;
    /** 3 to 4000 characters. */
    prompt: string;
    /**
     * 1 to 4; an integer.
     * @default 1
     */
    num_outputs?: number;
    /**
     * 256 to 2048; an integer; a multiple of 8.
     * @default 1024
     */
    width?: number;
    /**
     * 256 to 2048; an integer; a multiple of 8.
     * @default 1024
     */
    height?: number;
  };
  /** ByteDance Seedream 4.0. */
  "seedream-4": {
    model: "seedream-4";
    /**
     * Makes the result reproducible and cacheable.
     * 0 to 4294967295; an integer.
     */
    seed?: number;
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /**
     * upl_… of a completed upload.
     * At most 100 characters.
     */
    upload_id?: string;
    /**
     * An https URL mmgen fetches.
     * At most 4096 characters; format: uri.
     */
    image_url?: string;
    /** At most 4000 characters. */
    prompt: string;
    /**
     * 1 to 4; an integer.
     * @default 1
     */
    num_outputs?: number;
    /**
     * 1024 to 2048; an integer; a multiple of 8.
     * @default 1024
     */
    width?: number;
    /**
     * 1024 to 2048; an integer; a multiple of 8.
     * @default 1024
     */
    height?: number;
  };
  /** Ideogram 3.0 Turbo. */
  "ideogram-v3-turbo": {
    model: "ideogram-v3-turbo";
    /**
     * Makes the result reproducible and cacheable.
     * 0 to 2147483647; an integer.
     */
    seed?: number;
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** At most 4000 characters. */
    prompt: string;
    /**
     * 256 to 2048; an integer; a multiple of 8.
     * @default 1024
     */
    width?: number;
    /**
     * 256 to 2048; an integer; a multiple of 8.
     * @default 1024
     */
    height?: number;
  };
  /** Recraft V3. */
  "recraft-v3": {
    model: "recraft-v3";
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** At most 4000 characters. */
    prompt: string;
    /**
     * 256 to 2048; an integer; a multiple of 8.
     * @default 1024
     */
    width?: number;
    /**
     * 256 to 2048; an integer; a multiple of 8.
     * @default 1024
     */
    height?: number;
  };
}

/** The video models and the request each takes (POST body), by slug. */
export interface VideoModelParameters {
  /** Kling 2.1 Master. */
  "kling-v2.1-master": {
    model: "kling-v2.1-master";
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /**
     * upl_… of a completed upload.
     * At most 100 characters.
     */
    upload_id?: string;
    /**
     * An https URL mmgen fetches.
     * At most 4096 characters; format: uri.
     */
    image_url?: string;
    /** At most 2500 characters. */
    prompt: string;
    /** @default 5 */
    duration_s?: 5 | 10;
    /** @default "16:9" */
    aspect_ratio?: "16:9" | "9:16" | "1:1";
  };
  /** Kling 2.5 Turbo Pro. */
  "kling-v2.5-turbo-pro": {
    model: "kling-v2.5-turbo-pro";
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /**
     * upl_… of a completed upload.
     * At most 100 characters.
     */
    upload_id?: string;
    /**
     * An https URL mmgen fetches.
     * At most 4096 characters; format: uri.
     */
    image_url?: string;
    /** At most 2500 characters. */
    prompt: string;
    /** @default 5 */
    duration_s?: 5 | 10;
    /** @default "16:9" */
    aspect_ratio?: "16:9" | "9:16" | "1:1";
  };
  /** Google Veo 3.1. */
  "veo-3.1": {
    model: "veo-3.1";
    /**
     * Makes the result reproducible and cacheable.
     * 0 to 4294967295; an integer.
     */
    seed?: number;
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /**
     * upl_… of a completed upload.
     * At most 100 characters.
     */
    upload_id?: string;
    /**
     * An https URL mmgen fetches.
     * At most 4096 characters; format: uri.
     */
    image_url?: string;
    /** At most 4000 characters. */
    prompt: string;
    /** @default 8 */
    duration_s?: 4 | 6 | 8;
    /** @default "16:9" */
    aspect_ratio?: "16:9" | "9:16";
  };
  /** Google Veo 3.1 Fast. */
  "veo-3.1-fast": {
    model: "veo-3.1-fast";
    /**
     * Makes the result reproducible and cacheable.
     * 0 to 4294967295; an integer.
     */
    seed?: number;
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /**
     * upl_… of a completed upload.
     * At most 100 characters.
     */
    upload_id?: string;
    /**
     * An https URL mmgen fetches.
     * At most 4096 characters; format: uri.
     */
    image_url?: string;
    /** At most 4000 characters. */
    prompt: string;
    /** @default 8 */
    duration_s?: 4 | 6 | 8;
    /** @default "16:9" */
    aspect_ratio?: "16:9" | "9:16";
  };
  /** MiniMax Hailuo 02. */
  "hailuo-02": {
    model: "hailuo-02";
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /**
     * upl_… of a completed upload.
     * At most 100 characters.
     */
    upload_id?: string;
    /**
     * An https URL mmgen fetches.
     * At most 4096 characters; format: uri.
     */
    image_url?: string;
    /** At most 2000 characters. */
    prompt: string;
    /** @default 6 */
    duration_s?: 6 | 10;
  };
  /** ByteDance Seedance 1.0 Pro. */
  "seedance-1-pro": {
    model: "seedance-1-pro";
    /**
     * Makes the result reproducible and cacheable.
     * 0 to 4294967295; an integer.
     */
    seed?: number;
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /**
     * upl_… of a completed upload.
     * At most 100 characters.
     */
    upload_id?: string;
    /**
     * An https URL mmgen fetches.
     * At most 4096 characters; format: uri.
     */
    image_url?: string;
    /** At most 4000 characters. */
    prompt: string;
    /** @default 5 */
    duration_s?: 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | 11 | 12;
    /** @default "16:9" */
    aspect_ratio?: "16:9" | "9:16" | "1:1" | "4:3" | "3:4" | "21:9";
  };
  /** Wan 2.2 A14B. */
  "wan-2.2": {
    model: "wan-2.2";
    /**
     * Makes the result reproducible and cacheable.
     * 0 to 4294967295; an integer.
     */
    seed?: number;
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** At most 4000 characters. */
    prompt: string;
    /**
     * 1 to 10; an integer.
     * @default 5
     */
    duration_s?: number;
    /** @default "16:9" */
    aspect_ratio?: "16:9" | "9:16" | "1:1";
  };
  /** Tencent HunyuanVideo. */
  "hunyuan-video": {
    model: "hunyuan-video";
    /**
     * Makes the result reproducible and cacheable.
     * 0 to 4294967295; an integer.
     */
    seed?: number;
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** At most 4000 characters. */
    prompt: string;
    /**
     * 1 to 8; an integer.
     * @default 5
     */
    duration_s?: number;
    /** @default "16:9" */
    aspect_ratio?: "16:9" | "9:16";
  };
}

/** The voice models and the request each takes (POST body), by slug. */
export interface VoiceModelParameters {
  /** OpenAI TTS. */
  "tts-1": {
    model: "tts-1";
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** At most 4096 characters. */
    text: string;
    /**
     * At most 100 characters.
     * @default "alloy"
     */
    voice_id?: "alloy" | "ash" | "coral" | "echo" | "fable" | "nova" | "onyx" | "sage" | "shimmer";
    /** 0.5 to 2. */
    speed?: number;
  };
  /** OpenAI TTS HD. */
  "tts-1-hd": {
    model: "tts-1-hd";
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** At most 4096 characters. */
    text: string;
    /**
     * At most 100 characters.
     * @default "alloy"
     */
    voice_id?: "alloy" | "ash" | "coral" | "echo" | "fable" | "nova" | "onyx" | "sage" | "shimmer";
    /** 0.5 to 2. */
    speed?: number;
  };
  /** GPT-4o mini TTS. */
  "gpt-4o-mini-tts": {
    model: "gpt-4o-mini-tts";
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** At most 4096 characters. */
    text: string;
    /**
     * At most 100 characters.
     * @default "alloy"
     */
    voice_id?: "alloy" | "ash" | "ballad" | "coral" | "echo" | "fable" | "nova" | "onyx" | "sage" | "shimmer" | "verse" | "marin" | "cedar";
    /** 0.5 to 2. */
    speed?: number;
    /**
     * How to speak it (tone, pace, accent), for the models that take it (their parameters list it).
     * At most 4096 characters.
     */
    instructions?: string;
  };
  /** ElevenLabs Multilingual v2. */
  "eleven-multilingual-v2": {
    model: "eleven-multilingual-v2";
    /**
     * Makes the result reproducible and cacheable.
     * 0 to 4294967295; an integer.
     */
    seed?: number;
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** At most 5000 characters. */
    text: string;
    /**
     * At most 100 characters.
     * @default "JBFqnCBsd6RMkjVDRZzb"
     */
    voice_id?: string;
    /** 2 to 35 characters. */
    language?: string;
    /** 0.7 to 1.2. */
    speed?: number;
  };
  /** ElevenLabs Eleven v3. */
  "eleven-v3": {
    model: "eleven-v3";
    /**
     * Makes the result reproducible and cacheable.
     * 0 to 4294967295; an integer.
     */
    seed?: number;
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** At most 3000 characters. */
    text: string;
    /**
     * At most 100 characters.
     * @default "JBFqnCBsd6RMkjVDRZzb"
     */
    voice_id?: string;
    /** 2 to 35 characters. */
    language?: string;
    /** 0.7 to 1.2. */
    speed?: number;
  };
  /** ElevenLabs Turbo v2.5. */
  "eleven-turbo-v2.5": {
    model: "eleven-turbo-v2.5";
    /**
     * Makes the result reproducible and cacheable.
     * 0 to 4294967295; an integer.
     */
    seed?: number;
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** At most 5000 characters. */
    text: string;
    /**
     * At most 100 characters.
     * @default "JBFqnCBsd6RMkjVDRZzb"
     */
    voice_id?: string;
    /** 2 to 35 characters. */
    language?: string;
    /** 0.7 to 1.2. */
    speed?: number;
  };
  /** ElevenLabs Flash v2.5. */
  "eleven-flash-v2.5": {
    model: "eleven-flash-v2.5";
    /**
     * Makes the result reproducible and cacheable.
     * 0 to 4294967295; an integer.
     */
    seed?: number;
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** At most 5000 characters. */
    text: string;
    /**
     * At most 100 characters.
     * @default "JBFqnCBsd6RMkjVDRZzb"
     */
    voice_id?: string;
    /** 2 to 35 characters. */
    language?: string;
    /** 0.7 to 1.2. */
    speed?: number;
  };
  /** Kokoro 82M. */
  "kokoro-82m": {
    model: "kokoro-82m";
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** At most 5000 characters. */
    text: string;
    /** At most 100 characters. */
    voice_id?: "af_alloy" | "af_aoede" | "af_bella" | "af_jessica" | "af_kore" | "af_nicole" | "af_nova" | "af_river" | "af_sarah" | "af_sky" | "am_adam" | "am_echo" | "am_eric" | "am_fenrir" | "am_liam" | "am_michael" | "am_onyx" | "am_puck";
    /** 0.5 to 2. */
    speed?: number;
  };
  /** MiniMax Speech-02 HD. */
  "minimax-speech-02-hd": {
    model: "minimax-speech-02-hd";
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** At most 5000 characters. */
    text: string;
    /** At most 100 characters. */
    voice_id?: string;
    /** 2 to 35 characters. */
    language?: string;
    /** 0.5 to 2. */
    speed?: number;
  };
}

/** The music models and the request each takes (POST body), by slug. */
export interface MusicModelParameters {
  /** ElevenLabs Eleven Music. */
  "eleven-music": {
    model: "eleven-music";
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** At most 2000 characters. */
    prompt: string;
    /**
     * 5 to 300; an integer.
     * @default 30
     */
    duration_s?: number;
    /** @default false */
    with_vocals?: boolean;
  };
  /** ElevenLabs Eleven Music v2.5. */
  "eleven-music-v2.5": {
    model: "eleven-music-v2.5";
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** At most 2000 characters. */
    prompt: string;
    /**
     * 5 to 300; an integer.
     * @default 30
     */
    duration_s?: number;
    /** @default false */
    with_vocals?: boolean;
  };
  /** Google Lyria 2. */
  "lyria-2": {
    model: "lyria-2";
    /**
     * Makes the result reproducible and cacheable.
     * 0 to 4294967295; an integer.
     */
    seed?: number;
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** At most 2000 characters. */
    prompt: string;
  };
  /** MiniMax Music 1.5. */
  "minimax-music-1.5": {
    model: "minimax-music-1.5";
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** 10 to 300 characters. */
    prompt: string;
    /** 10 to 600 characters. */
    lyrics: string;
  };
  /** Stable Audio 2.5. */
  "stable-audio-2.5": {
    model: "stable-audio-2.5";
    /**
     * Makes the result reproducible and cacheable.
     * 0 to 4294967295; an integer.
     */
    seed?: number;
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** At most 4000 characters. */
    prompt: string;
    /**
     * 5 to 190; an integer.
     * @default 30
     */
    duration_s?: number;
  };
  /** Meta MusicGen. */
  musicgen: {
    model: "musicgen";
    /**
     * Makes the result reproducible and cacheable.
     * 0 to 4294967295; an integer.
     */
    seed?: number;
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** At most 4000 characters. */
    prompt: string;
    /**
     * 5 to 300; an integer.
     * @default 30
     */
    duration_s?: number;
  };
  /** ACE-Step. */
  "ace-step": {
    model: "ace-step";
    /**
     * Makes the result reproducible and cacheable.
     * 0 to 4294967295; an integer.
     */
    seed?: number;
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** At most 4000 characters. */
    prompt: string;
    /**
     * 5 to 240; an integer.
     * @default 30
     */
    duration_s?: number;
    /** At most 5000 characters. */
    lyrics?: string;
  };
}

/** The avatar models and the request each takes (POST body), by slug. */
export interface AvatarModelParameters {
  /** ByteDance OmniHuman. Needs an input image: `upload_id` or `image_url`. Give one of `text`, `audio_url` and `audio_upload_id`. `text` is spoken first by eleven-turbo-v2.5 (with `voice_id`). */
  omnihuman: {
    model: "omnihuman";
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /**
     * upl_… of a completed upload.
     * At most 100 characters.
     */
    upload_id?: string;
    /**
     * An https URL mmgen fetches.
     * At most 4096 characters; format: uri.
     */
    image_url?: string;
    /** At most 4096 characters; format: uri. */
    audio_url?: string;
    /**
     * An upload of audio/mpeg or audio/wav (POST /v1/uploads).
     * At most 100 characters.
     */
    audio_upload_id?: string;
    /** At most 5000 characters. */
    text?: string;
    /** At most 100 characters. */
    voice_id?: string;
  } & InputImage & ({ text: string; audio_url?: never; audio_upload_id?: never } | { audio_url: string; text?: never; audio_upload_id?: never; voice_id?: never } | { audio_upload_id: string; text?: never; audio_url?: never; voice_id?: never });
  /** ByteDance OmniHuman 1.5. Needs an input image: `upload_id` or `image_url`. Give one of `text`, `audio_url` and `audio_upload_id`. `text` is spoken first by eleven-turbo-v2.5 (with `voice_id`). */
  "omnihuman-1.5": {
    model: "omnihuman-1.5";
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /**
     * upl_… of a completed upload.
     * At most 100 characters.
     */
    upload_id?: string;
    /**
     * An https URL mmgen fetches.
     * At most 4096 characters; format: uri.
     */
    image_url?: string;
    /** At most 4096 characters; format: uri. */
    audio_url?: string;
    /**
     * An upload of audio/mpeg or audio/wav (POST /v1/uploads).
     * At most 100 characters.
     */
    audio_upload_id?: string;
    /** At most 5000 characters. */
    text?: string;
    /** At most 100 characters. */
    voice_id?: string;
  } & InputImage & ({ text: string; audio_url?: never; audio_upload_id?: never } | { audio_url: string; text?: never; audio_upload_id?: never; voice_id?: never } | { audio_upload_id: string; text?: never; audio_url?: never; voice_id?: never });
  /** Kling AI Avatar (Standard). Needs an input image: `upload_id` or `image_url`. Give one of `text`, `audio_url` and `audio_upload_id`. `text` is spoken first by eleven-turbo-v2.5 (with `voice_id`). */
  "kling-ai-avatar": {
    model: "kling-ai-avatar";
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /**
     * upl_… of a completed upload.
     * At most 100 characters.
     */
    upload_id?: string;
    /**
     * An https URL mmgen fetches.
     * At most 4096 characters; format: uri.
     */
    image_url?: string;
    /** At most 4096 characters; format: uri. */
    audio_url?: string;
    /**
     * An upload of audio/mpeg or audio/wav (POST /v1/uploads).
     * At most 100 characters.
     */
    audio_upload_id?: string;
    /** At most 5000 characters. */
    text?: string;
    /** At most 100 characters. */
    voice_id?: string;
  } & InputImage & ({ text: string; audio_url?: never; audio_upload_id?: never } | { audio_url: string; text?: never; audio_upload_id?: never; voice_id?: never } | { audio_upload_id: string; text?: never; audio_url?: never; voice_id?: never });
  /** VEED Fabric 1.0. Needs an input image: `upload_id` or `image_url`. Give one of `text`, `audio_url` and `audio_upload_id`. `text` is spoken first by eleven-turbo-v2.5 (with `voice_id`). */
  "fabric-1.0": {
    model: "fabric-1.0";
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /**
     * upl_… of a completed upload.
     * At most 100 characters.
     */
    upload_id?: string;
    /**
     * An https URL mmgen fetches.
     * At most 4096 characters; format: uri.
     */
    image_url?: string;
    /** At most 2083 characters; format: uri. */
    audio_url?: string;
    /**
     * An upload of audio/mpeg or audio/wav (POST /v1/uploads).
     * At most 100 characters.
     */
    audio_upload_id?: string;
    /** At most 5000 characters. */
    text?: string;
    /** At most 100 characters. */
    voice_id?: string;
  } & InputImage & ({ text: string; audio_url?: never; audio_upload_id?: never } | { audio_url: string; text?: never; audio_upload_id?: never; voice_id?: never } | { audio_upload_id: string; text?: never; audio_url?: never; voice_id?: never });
  /** VEED Fabric 1.0 (text). Needs an input image: `upload_id` or `image_url`. */
  "fabric-1.0-text": {
    model: "fabric-1.0-text";
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /**
     * upl_… of a completed upload.
     * At most 100 characters.
     */
    upload_id?: string;
    /**
     * An https URL mmgen fetches.
     * At most 4096 characters; format: uri.
     */
    image_url?: string;
    /** At most 2000 characters. */
    text: string;
  } & InputImage;
}

/** The chat models and the request each takes (POST body), by slug. */
export interface ChatModelParameters {
  /** GPT-4o mini. */
  "gpt-4o-mini": {
    model: "gpt-4o-mini";
    /**
     * Makes the result reproducible and cacheable.
     * 0 to 4294967295; an integer.
     */
    seed?: number;
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** 1 to 500 items. */
    messages: Array<{
      role: "system" | "user" | "assistant";
      /** At most 200000 characters. */
      content: string;
    }>;
    /**
     * 1 to 16384; an integer.
     * @default 1024
     */
    max_tokens?: number;
    /** 0 to 2. */
    temperature?: number;
  };
  /** GPT-4o. */
  "gpt-4o": {
    model: "gpt-4o";
    /**
     * Makes the result reproducible and cacheable.
     * 0 to 4294967295; an integer.
     */
    seed?: number;
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** 1 to 500 items. */
    messages: Array<{
      role: "system" | "user" | "assistant";
      /** At most 200000 characters. */
      content: string;
    }>;
    /**
     * 1 to 16384; an integer.
     * @default 1024
     */
    max_tokens?: number;
    /** 0 to 2. */
    temperature?: number;
  };
  /** GPT-4.1. */
  "gpt-4.1": {
    model: "gpt-4.1";
    /**
     * Makes the result reproducible and cacheable.
     * 0 to 4294967295; an integer.
     */
    seed?: number;
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** 1 to 500 items. */
    messages: Array<{
      role: "system" | "user" | "assistant";
      /** At most 200000 characters. */
      content: string;
    }>;
    /**
     * 1 to 32768; an integer.
     * @default 1024
     */
    max_tokens?: number;
    /** 0 to 2. */
    temperature?: number;
  };
  /** GPT-4.1 mini. */
  "gpt-4.1-mini": {
    model: "gpt-4.1-mini";
    /**
     * Makes the result reproducible and cacheable.
     * 0 to 4294967295; an integer.
     */
    seed?: number;
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** 1 to 500 items. */
    messages: Array<{
      role: "system" | "user" | "assistant";
      /** At most 200000 characters. */
      content: string;
    }>;
    /**
     * 1 to 32768; an integer.
     * @default 1024
     */
    max_tokens?: number;
    /** 0 to 2. */
    temperature?: number;
  };
  /** GPT-5. */
  "gpt-5": {
    model: "gpt-5";
    /**
     * Makes the result reproducible and cacheable.
     * 0 to 4294967295; an integer.
     */
    seed?: number;
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** 1 to 500 items. */
    messages: Array<{
      role: "system" | "user" | "assistant";
      /** At most 200000 characters. */
      content: string;
    }>;
    /**
     * 1 to 32768; an integer.
     * @default 1024
     */
    max_tokens?: number;
  };
  /** GPT-5 mini. */
  "gpt-5-mini": {
    model: "gpt-5-mini";
    /**
     * Makes the result reproducible and cacheable.
     * 0 to 4294967295; an integer.
     */
    seed?: number;
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** 1 to 500 items. */
    messages: Array<{
      role: "system" | "user" | "assistant";
      /** At most 200000 characters. */
      content: string;
    }>;
    /**
     * 1 to 32768; an integer.
     * @default 1024
     */
    max_tokens?: number;
  };
  /** GPT-6.2 Astra. */
  "gpt-6.2-astra": {
    model: "gpt-6.2-astra";
    /**
     * Makes the result reproducible and cacheable.
     * 0 to 4294967295; an integer.
     */
    seed?: number;
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** 1 to 500 items. */
    messages: Array<{
      role: "system" | "user" | "assistant";
      /** At most 200000 characters. */
      content: string;
    }>;
    /**
     * 1 to 32768; an integer.
     * @default 1024
     */
    max_tokens?: number;
  };
  /** GPT-6.2 Sol. */
  "gpt-6.2-sol": {
    model: "gpt-6.2-sol";
    /**
     * Makes the result reproducible and cacheable.
     * 0 to 4294967295; an integer.
     */
    seed?: number;
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** 1 to 500 items. */
    messages: Array<{
      role: "system" | "user" | "assistant";
      /** At most 200000 characters. */
      content: string;
    }>;
    /**
     * 1 to 32768; an integer.
     * @default 1024
     */
    max_tokens?: number;
  };
  /** GPT-6.1 Sol. */
  "gpt-6.1-sol": {
    model: "gpt-6.1-sol";
    /**
     * Makes the result reproducible and cacheable.
     * 0 to 4294967295; an integer.
     */
    seed?: number;
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** 1 to 500 items. */
    messages: Array<{
      role: "system" | "user" | "assistant";
      /** At most 200000 characters. */
      content: string;
    }>;
    /**
     * 1 to 32768; an integer.
     * @default 1024
     */
    max_tokens?: number;
  };
  /** GPT-6.1 Terra. */
  "gpt-6.1-terra": {
    model: "gpt-6.1-terra";
    /**
     * Makes the result reproducible and cacheable.
     * 0 to 4294967295; an integer.
     */
    seed?: number;
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** 1 to 500 items. */
    messages: Array<{
      role: "system" | "user" | "assistant";
      /** At most 200000 characters. */
      content: string;
    }>;
    /**
     * 1 to 32768; an integer.
     * @default 1024
     */
    max_tokens?: number;
  };
  /** GPT-6 Luna. */
  "gpt-6-luna": {
    model: "gpt-6-luna";
    /**
     * Makes the result reproducible and cacheable.
     * 0 to 4294967295; an integer.
     */
    seed?: number;
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** 1 to 500 items. */
    messages: Array<{
      role: "system" | "user" | "assistant";
      /** At most 200000 characters. */
      content: string;
    }>;
    /**
     * 1 to 32768; an integer.
     * @default 1024
     */
    max_tokens?: number;
  };
  /** Claude Sonnet 4.5. */
  "claude-sonnet-4.5": {
    model: "claude-sonnet-4.5";
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** 1 to 500 items. */
    messages: Array<{
      role: "system" | "user" | "assistant";
      /** At most 200000 characters. */
      content: string;
    }>;
    /**
     * 1 to 32768; an integer.
     * @default 1024
     */
    max_tokens?: number;
    /** 0 to 2. */
    temperature?: number;
  };
  /** Claude Haiku 4.5. */
  "claude-haiku-4.5": {
    model: "claude-haiku-4.5";
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** 1 to 500 items. */
    messages: Array<{
      role: "system" | "user" | "assistant";
      /** At most 200000 characters. */
      content: string;
    }>;
    /**
     * 1 to 32768; an integer.
     * @default 1024
     */
    max_tokens?: number;
    /** 0 to 2. */
    temperature?: number;
  };
  /** Claude Opus 5.5. */
  "claude-opus-5.5": {
    model: "claude-opus-5.5";
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** 1 to 500 items. */
    messages: Array<{
      role: "system" | "user" | "assistant";
      /** At most 200000 characters. */
      content: string;
    }>;
    /**
     * 1 to 32768; an integer.
     * @default 1024
     */
    max_tokens?: number;
  };
  /** Claude Sonnet 5.5. */
  "claude-sonnet-5.5": {
    model: "claude-sonnet-5.5";
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** 1 to 500 items. */
    messages: Array<{
      role: "system" | "user" | "assistant";
      /** At most 200000 characters. */
      content: string;
    }>;
    /**
     * 1 to 32768; an integer.
     * @default 1024
     */
    max_tokens?: number;
  };
  /** Claude Haiku 5.5. */
  "claude-haiku-5.5": {
    model: "claude-haiku-5.5";
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** 1 to 500 items. */
    messages: Array<{
      role: "system" | "user" | "assistant";
      /** At most 200000 characters. */
      content: string;
    }>;
    /**
     * 1 to 32768; an integer.
     * @default 1024
     */
    max_tokens?: number;
  };
}

/** The 3d models and the request each takes (POST body), by slug. */
export interface ThreeDModelParameters {
  /** Tencent Hunyuan3D 2.0. Needs an input image: `upload_id` or `image_url`. */
  "hunyuan3d-2": {
    model: "hunyuan3d-2";
    /**
     * Makes the result reproducible and cacheable.
     * 0 to 4294967295; an integer.
     */
    seed?: number;
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /**
     * upl_… of a completed upload.
     * At most 100 characters.
     */
    upload_id?: string;
    /**
     * An https URL mmgen fetches.
     * At most 4096 characters; format: uri.
     */
    image_url?: string;
  } & InputImage;
  /** Tencent Hunyuan3D 3.0. */
  "hunyuan3d-3": {
    model: "hunyuan3d-3";
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** At most 1024 characters. */
    prompt: string;
  };
  /** Microsoft TRELLIS. Needs an input image: `upload_id` or `image_url`. */
  trellis: {
    model: "trellis";
    /**
     * Makes the result reproducible and cacheable.
     * 0 to 4294967295; an integer.
     */
    seed?: number;
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /**
     * upl_… of a completed upload.
     * At most 100 characters.
     */
    upload_id?: string;
    /**
     * An https URL mmgen fetches.
     * At most 4096 characters; format: uri.
     */
    image_url?: string;
  } & InputImage;
  /** Hyper3D Rodin. Give `prompt`, `upload_id` or `image_url`. */
  rodin: {
    model: "rodin";
    /**
     * Makes the result reproducible and cacheable.
     * 0 to 65535; an integer.
     */
    seed?: number;
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /**
     * upl_… of a completed upload.
     * At most 100 characters.
     */
    upload_id?: string;
    /**
     * An https URL mmgen fetches.
     * At most 4096 characters; format: uri.
     */
    image_url?: string;
    /** At most 1024 characters. */
    prompt?: string;
    /** @default "glb" */
    format?: "glb";
  } & ({ prompt: string } | { upload_id: string } | { image_url: string });
  /** Tripo 2.5. */
  "tripo-v2.5": {
    model: "tripo-v2.5";
    /**
     * Makes the result reproducible and cacheable.
     * 0 to 4294967295; an integer.
     */
    seed?: number;
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /** At most 1024 characters. */
    prompt: string;
  };
}

/** The upscale models and the request each takes (POST body), by slug. */
export interface UpscaleModelParameters {
  /** Real-ESRGAN. Needs an input image: `upload_id` or `image_url`. */
  "real-esrgan": {
    model: "real-esrgan";
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /**
     * upl_… of a completed upload.
     * At most 100 characters.
     */
    upload_id?: string;
    /**
     * An https URL mmgen fetches.
     * At most 4096 characters; format: uri.
     */
    image_url?: string;
    /** @default 2 */
    scale?: 2 | 4;
    /** @default false */
    face_restore?: boolean;
  } & InputImage;
  /** Clarity Upscaler. Needs an input image: `upload_id` or `image_url`. */
  "clarity-upscaler": {
    model: "clarity-upscaler";
    /**
     * Makes the result reproducible and cacheable.
     * 0 to 4294967295; an integer.
     */
    seed?: number;
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /**
     * upl_… of a completed upload.
     * At most 100 characters.
     */
    upload_id?: string;
    /**
     * An https URL mmgen fetches.
     * At most 4096 characters; format: uri.
     */
    image_url?: string;
    /** @default 2 */
    scale?: 2 | 4;
  } & InputImage;
  /** Recraft Crisp Upscale. Needs an input image: `upload_id` or `image_url`. */
  "recraft-crisp-upscale": {
    model: "recraft-crisp-upscale";
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /**
     * upl_… of a completed upload.
     * At most 100 characters.
     */
    upload_id?: string;
    /**
     * An https URL mmgen fetches.
     * At most 4096 characters; format: uri.
     */
    image_url?: string;
  } & InputImage;
  /** CodeFormer. Needs an input image: `upload_id` or `image_url`. */
  codeformer: {
    model: "codeformer";
    /**
     * Makes the result reproducible and cacheable.
     * 0 to 4294967295; an integer.
     */
    seed?: number;
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /**
     * upl_… of a completed upload.
     * At most 100 characters.
     */
    upload_id?: string;
    /**
     * An https URL mmgen fetches.
     * At most 4096 characters; format: uri.
     */
    image_url?: string;
    /** @default 2 */
    scale?: 2 | 4;
  } & InputImage;
  /** GFPGAN. Needs an input image: `upload_id` or `image_url`. */
  gfpgan: {
    model: "gfpgan";
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /**
     * upl_… of a completed upload.
     * At most 100 characters.
     */
    upload_id?: string;
    /**
     * An https URL mmgen fetches.
     * At most 4096 characters; format: uri.
     */
    image_url?: string;
    /** @default 2 */
    scale?: 2 | 4;
  } & InputImage;
  /** Topaz Image Upscale. Needs an input image: `upload_id` or `image_url`. */
  "topaz-image-upscale": {
    model: "topaz-image-upscale";
    /** false: never answer from the cache. */
    cache?: boolean;
    /** Steers the simulator (test keys, or MMGEN_SIMULATE_PROVIDERS=1): the first upstream submission only. */
    simulate?: {
      outcome?: "success" | "failure" | "lost";
      /** 0 to 600000; an integer. */
      delay_ms?: number;
      /** 0 to 32768; an integer. */
      output_tokens?: number;
      /** The moderation verdict every output gets, whatever the classifiers say (to test how a client handles each). */
      moderation?: "approved" | "flagged" | "blocked";
    };
    /**
     * upl_… of a completed upload.
     * At most 100 characters.
     */
    upload_id?: string;
    /**
     * An https URL mmgen fetches.
     * At most 4096 characters; format: uri.
     */
    image_url?: string;
    /** @default 2 */
    scale?: 2 | 4;
    /** @default false */
    face_restore?: boolean;
  } & InputImage;
}

/** Every modality's models, by the modality's name. */
export interface ModelParameters {
  image: ImageModelParameters;
  video: VideoModelParameters;
  voice: VoiceModelParameters;
  music: MusicModelParameters;
  avatar: AvatarModelParameters;
  chat: ChatModelParameters;
  "3d": ThreeDModelParameters;
  upscale: UpscaleModelParameters;
}
