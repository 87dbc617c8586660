/**
 * Credentials by shape, wherever they appear in text: the one list the log (log.ts), the audit (domain/audit.ts) and
 * payload capture (request-log/redaction.ts) redact. mmgen's API keys and webhook signing secrets, the providers'
 * keys, cloud access key ids, bearer tokens, PEM private keys, and secrets in URLs (a signature, a presigned S3
 * URL's credential and signature, a token, in the query or the fragment: an invitation's link is `#token=`).
 * Run with the engine's RegExp, not RE2: they are ours and fixed, written not to backtrack (unlike an organization's
 * patterns, see request-log/redaction.ts), and the URL one needs a lookbehind, which RE2 lacks. Global: use with
 * replace or search, never test (lastIndex).
 */
export const SECRET_SHAPES: readonly RegExp[] = [
  /sk_(?:live|test)_[0-9A-Za-z]{8,}/g,
  /whsec_[0-9A-Za-z]{8,}/g,
  /sk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}/g,
  /r8_[A-Za-z0-9]{20,}/g,
  /(?:AKIA|ASIA)[0-9A-Z]{16}/g,
  /\bBearer\s+[A-Za-z0-9._~+/-]{8,}=*/gi,
  // From BEGIN to the next run of five dashes (its END, kept in the match, or another BEGIN), single dashes allowed
  // (a legacy key's Proc-Type and DEK-Info headers). A lazy `[\s\S]*?` up to END was quadratic on a body that
  // repeats BEGIN with no END: each BEGIN scanned to the end of the text. This way each character is scanned once,
  // and a BEGIN without its END is redacted up to where it stops (fail closed).
  /-----BEGIN [A-Z ]*PRIVATE KEY-----(?:[^-]|-(?!----))*(?:-----END [A-Z ]*PRIVATE KEY-----)?/g,
  /(?<=[?&#](?:signature|X-Amz-Signature|X-Amz-Credential|X-Amz-Security-Token|token)=)[^&#\s"']+/gi,
];

/** The text with every secret shape replaced by `marker`. */
export function redactSecretShapes(text: string, marker: string): string {
  let out = text;
  for (const shape of SECRET_SHAPES) out = out.replace(shape, marker);
  return out;
}

/** Whether the text holds a secret shape anywhere. */
export function holdsSecretShape(text: string): boolean {
  return SECRET_SHAPES.some((shape) => text.search(shape) !== -1);
}
