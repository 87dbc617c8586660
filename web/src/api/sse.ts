import { ApiError, type Api } from './client.js';
import { TERMINAL, type Generation } from './types.js';

interface SseEvent {
  id?: string;
  event: string;
  data: string;
}

/** Splits a text/event-stream into events (the WHATWG format: fields per line, events end at a blank line). */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let current: SseEvent = { event: 'message', data: '' };
  let hasData = false;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let nl: number;
    while ((nl = buffer.search(/\r\n|\r|\n/)) !== -1) {
      // A CR at the very end may be the first half of a CRLF split across chunks: wait for the next one.
      if (buffer[nl] === '\r' && nl === buffer.length - 1) break;
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + (buffer[nl] === '\r' && buffer[nl + 1] === '\n' ? 2 : 1));
      if (line === '') {
        if (hasData) yield current;
        current = { event: 'message', data: '' };
        hasData = false;
        continue;
      }
      if (line.startsWith(':')) continue; // a comment (keep-alive ping)
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') current.event = value;
      else if (field === 'id') current.id = value;
      else if (field === 'data') {
        current.data = hasData ? `${current.data}\n${value}` : value;
        hasData = true;
      }
    }
  }
}

/**
 * Follows GET /v1/generations/{id}/events until the generation is terminal,
 * calling `onUpdate` with each state. EventSource cannot send an Authorization
 * header (and the key must never be put in a URL), so this reads the stream
 * with fetch; a dropped stream is resumed with Last-Event-ID.
 */
export async function followGeneration(
  api: Api,
  id: string,
  onUpdate: (g: Generation) => void,
  signal: AbortSignal,
): Promise<Generation | null> {
  let lastEventId: string | undefined;
  let last: Generation | null = null;
  for (let attempt = 0; attempt < 20 && !signal.aborted; attempt++) {
    try {
      const headers = api.headers({ Accept: 'text/event-stream', ...(lastEventId ? { 'Last-Event-ID': lastEventId } : {}) });
      const res = await fetch(`/v1/generations/${encodeURIComponent(id)}/events`, { headers, signal, credentials: api.credentials });
      if (!res.ok || !res.body) {
        const body = (await res.json().catch(() => null)) as { error?: { code: string; message: string } } | null;
        throw new ApiError(res.status, body?.error?.code ?? 'http_error', body?.error?.message ?? `HTTP ${res.status}`);
      }
      for await (const ev of readSse(res.body)) {
        if (ev.id) lastEventId = ev.id;
        if (ev.event !== 'generation') continue;
        last = JSON.parse(ev.data) as Generation;
        onUpdate(last);
        if (TERMINAL.includes(last.status)) return last;
      }
    } catch (err) {
      if (signal.aborted) return last;
      if (err instanceof ApiError && (err.code === 'session_replaced' || (err.status >= 400 && err.status < 500 && err.status !== 429))) throw err;
    }
    // The stream ended early (a proxy timeout, a restart): resume after a pause.
    await new Promise((r) => setTimeout(r, Math.min(5000, 500 * (attempt + 1))));
  }
  return last;
}
