/** The curl command for a request, with the key as an environment variable (never the key itself). */
export function curlFor(method: string, path: string, body?: unknown): string {
  const origin = window.location.origin;
  const lines = [`curl -s${method === 'GET' ? '' : ` -X ${method}`} ${origin}${path}`, `  -H "Authorization: Bearer $MMGEN_API_KEY"`];
  if (body !== undefined) {
    const json = JSON.stringify(body).replace(/'/g, `'\\''`);
    lines.push(`  -H 'Content-Type: application/json'`, `  -d '${json}'`);
  }
  return lines.join(' \\\n');
}
