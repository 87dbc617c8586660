/** One server-sent event (https://html.spec.whatwg.org/multipage/server-sent-events.html). */
export interface ServerSentEvent {
  /** `message` when the server named none. */
  event: string;
  data: string;
  id: string | undefined;
}

/**
 * Parses a text/event-stream body. Comments (`: ping`) are skipped but still
 * count as activity for `onActivity`, which a caller uses as an idle watchdog.
 */
export async function* parseSSE(body: ReadableStream<Uint8Array>, onActivity: () => void = () => {}): AsyncGenerator<ServerSentEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let event = '';
  let data: string[] = [];
  let id: string | undefined;
  let sawData = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      onActivity();
      buffer += decoder.decode(value, { stream: true });
      for (;;) {
        const nl = buffer.search(/\r\n|\r|\n/);
        if (nl < 0) break;
        // A lone \r at the very end may be the first half of \r\n: wait for more.
        if (buffer[nl] === '\r' && nl === buffer.length - 1) break;
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + (buffer.startsWith('\r\n', nl) ? 2 : 1));
        if (line === '') {
          if (sawData) yield { event: event || 'message', data: data.join('\n'), id };
          event = '';
          data = [];
          sawData = false;
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? '' : line.slice(colon + 1);
        if (value.startsWith(' ')) value = value.slice(1);
        if (field === 'event') event = value;
        else if (field === 'data') {
          data.push(value);
          sawData = true;
        } else if (field === 'id' && !value.includes('\0')) id = value;
      }
    }
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => {});
  }
}
