import type { UpstreamRequest } from '../types.js';
import type { UpstreamRecords } from '../upstream-record.js';
import { documentedBody, recordForRequest, upstreamInput, withModelDefaults } from '../upstream-input.js';

/**
 * How mmgen's request fields become OpenAI's: each model's record
 * (src/providers/openai/models/, docs/upstream-models.md) maps the fields it
 * takes, so a model never receives one it refuses (gpt-5 takes no
 * temperature, top_p, stop or penalties) and the differences between models
 * are data.
 *
 * - chat: messages pass as they are (mmgen's are already OpenAI's shape);
 *   `max_tokens` is sent as `max_completion_tokens` (the name every current
 *   model accepts); `stop` as a list (an empty one is not sent).
 * - images: OpenAI takes a fixed set of sizes per model (the record's enum);
 *   mmgen's width and height pick the one closest in shape, then in area.
 *   `seed` and `negative_prompt` have no OpenAI equivalent: not mapped, so
 *   not taken. An input image goes to the edits endpoint as a multipart form.
 * - speech: `voice_id` is OpenAI's `voice` (the record's default "alloy"),
 *   `speed` passes; `language` is not taken (OpenAI detects it from the text).
 * Every body is checked against the model's record before it is sent.
 */
const NAME = 'openai';

export function chatRequest(records: UpstreamRecords, req: UpstreamRequest, stream: boolean): Record<string, unknown> {
  const record = recordForRequest(records, req);
  const body: Record<string, unknown> = { model: req.upstreamModel, ...upstreamInput(record, req.params) };
  if (stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return documentedBody(NAME, record, body);
}

/** The JSON body of an image generation (no input image). */
export function imageRequest(records: UpstreamRecords, req: UpstreamRequest): Record<string, unknown> {
  const record = recordForRequest(records, req);
  return documentedBody(NAME, record, { model: req.upstreamModel, ...upstreamInput(record, req.params) });
}

/**
 * The form fields of an image edit (with an input image), as text, and the name of the image part: OpenAI
 * documents POST /v1/images/edits as multipart/form-data (the record's `edits_input`).
 */
export function imageEditFields(records: UpstreamRecords, req: UpstreamRequest, imageName: string): Record<string, string> {
  const record = recordForRequest(records, req);
  const fields: Record<string, unknown> = { model: req.upstreamModel, ...upstreamInput(record, req.params) };
  documentedBody(NAME, record, { ...fields, image: imageName }, record.edits_input ?? record.input);
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, String(v)]));
}

export function speechRequest(records: UpstreamRecords, req: UpstreamRequest): Record<string, unknown> {
  const record = recordForRequest(records, req);
  return documentedBody(NAME, record, { model: req.upstreamModel, ...upstreamInput(record, withModelDefaults(record, req.params)) });
}
