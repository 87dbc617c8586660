import openapiTS, { astToString } from 'openapi-typescript';

/** Where the generated types live, relative to the sdk package. */
export const GENERATED_TYPES_PATH = 'src/generated/openapi.ts';

/**
 * The TypeScript text of mmgen's OpenAPI document, as openapi-typescript
 * renders it. Deterministic for a given document: `servers` (the address the
 * document was served from) is dropped so that where it was fetched from does
 * not change the output.
 */
export async function renderOpenApiTypes(document: Record<string, unknown>): Promise<string> {
  const { servers: _servers, ...rest } = document;
  const version = (rest.info as { version?: string } | undefined)?.version ?? 'unknown';
  const ast = await openapiTS(rest as unknown as Parameters<typeof openapiTS>[0], { alphabetize: false, exportType: false });
  const header = [
    '/* eslint-disable */',
    `// Generated from mmgen's GET /v1/openapi.json (API ${version}) by \`npm run generate -w @mmgen/sdk\`.`,
    '// Do not edit: a test fails when this file differs from what mmgen serves.',
    '',
  ].join('\n');
  return `${header}${astToString(ast)}`;
}
