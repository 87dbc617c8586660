import type { Context } from './context.js';

/**
 * The server's deprecation headers (docs/contract-addenda.md, "Deprecation headers") as one line for stderr: which
 * models, since when, when they shut down, and their successor, so that a script notices before the model is gone.
 */

interface Link {
  target: string;
  params: Record<string, string>;
}

/** An RFC 8288 Link field's links: `<target>; name="value"; …`, comma-separated (a comma inside <> or quotes is not a separator). */
export function parseLinks(field: string): Link[] {
  const pieces: string[] = [];
  let current = '';
  let inTarget = false;
  let inQuotes = false;
  for (const ch of field) {
    if (ch === '<' && !inQuotes) inTarget = true;
    else if (ch === '>' && !inQuotes) inTarget = false;
    else if (ch === '"' && !inTarget) inQuotes = !inQuotes;
    if (ch === ',' && !inTarget && !inQuotes) {
      pieces.push(current);
      current = '';
    } else current += ch;
  }
  pieces.push(current);
  return pieces.flatMap((piece) => {
    const m = /^\s*<([^>]*)>(.*)$/s.exec(piece);
    if (!m) return [];
    const params: Record<string, string> = {};
    for (const p of m[2]!.matchAll(/;\s*([\w*-]+)\s*=\s*(?:"([^"]*)"|([^\s;"]+))/g)) params[p[1]!.toLowerCase()] = p[2] ?? p[3]!;
    return [{ target: m[1]!, params }];
  });
}

const MODEL_PATH = /^\/v1\/models\/([^/?#]+)$/;

/** YYYY-MM-DD of an instant. */
const day = (d: Date) => d.toISOString().slice(0, 10);

/** The warning a response's headers call for, or null when it carries no `Deprecation`. */
export function deprecationWarning(headers: Headers): string | null {
  const deprecation = headers.get('deprecation');
  if (!deprecation) return null;
  const since = /^@(-?\d+)$/.exec(deprecation.trim());
  const sunset = headers.get('sunset');
  const links = parseLinks(headers.get('link') ?? '');
  const models = [...new Set(links.filter((l) => l.params.rel === 'deprecation').map((l) => MODEL_PATH.exec(l.target)?.[1]).filter((s): s is string => !!s))];
  const successors = links.filter((l) => l.params.rel === 'successor-version').map((l) => MODEL_PATH.exec(l.target)?.[1] ?? l.target);
  const what = models.length === 0 ? 'the model is' : models.length === 1 ? `${models[0]} is` : `${models.join(', ')} are`;
  const parts = [`${what} deprecated${since ? ` (since ${day(new Date(Number(since[1]) * 1000))})` : ''}`];
  const sunsetAt = sunset ? new Date(sunset) : null;
  if (sunsetAt && !Number.isNaN(sunsetAt.getTime())) parts.push(`shuts down ${day(sunsetAt)}`);
  if (successors.length > 0) parts.push(`successor: ${successors.join(', ')}`);
  const more = models.length === 1 ? `; see: mmgen models show ${models[0]}` : '';
  return `mmgen: warning: ${parts.join('; ')}${more}`;
}

/** Writes the warning on stderr (even with --quiet or --json: stdout stays the answer). */
export function warnIfDeprecated(ctx: Context, response: Response): void {
  const line = deprecationWarning(response.headers);
  if (line) ctx.stderr.write(`${line}\n`);
}
