export interface SseEvent {
  id?: string;
  event?: string;
  data?: string;
}

/** Reads a whole text/event-stream response into its events (the stream must end by itself). */
export async function readEvents(url: string, key: string, headers: Record<string, string> = {}): Promise<{ status: number; type: string | null; events: SseEvent[]; comments: number }> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}`, ...headers }, signal: AbortSignal.timeout(20_000) });
  const text = await res.text();
  const events: SseEvent[] = [];
  let comments = 0;
  for (const block of text.split('\n\n')) {
    if (!block.trim()) continue;
    const ev: SseEvent = {};
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) comments++;
      else if (line.startsWith('id: ')) ev.id = line.slice(4);
      else if (line.startsWith('event: ')) ev.event = line.slice(7);
      else if (line.startsWith('data: ')) ev.data = line.slice(6);
    }
    if (ev.event) events.push(ev);
  }
  return { status: res.status, type: res.headers.get('content-type'), events, comments };
}
