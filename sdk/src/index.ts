/**
 * @mmgen/sdk: the TypeScript client of mmgen. Runs in Node 20+ and browsers
 * (fetch and Web Crypto only).
 */
export { Mmgen, DEFAULT_BASE_URL, type ClientOptions } from './client.js';
export { Mmgen as default } from './client.js';
export { APIPromise, type WithResponse } from './core/api-promise.js';
export { Page, PagePromise } from './core/pagination.js';
export type { RequestOptions, RetryPolicy } from './core/transport.js';
export * from './errors.js';
export type { ChatCompletionStream } from './resources/chat.js';
export type { ComparisonWaitOptions } from './resources/comparisons.js';
export { isTerminal, TERMINAL_STATUSES, StreamUnavailableError, type GenerationProgress, type GenerationStreamEvent, type StreamOptions, type WaitOptions } from './resources/generations.js';
export { detectImageType, type UploadFile } from './resources/uploads.js';
export { MODALITY_ENDPOINTS } from './generated/modalities.js';
export * from './types.js';
export { VERSION } from './version.js';
export * from './webhooks.js';
