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

/** Where the modalities' endpoints, as the document's `x-mmgen-modality` extensions declare them, are written. */
export const GENERATED_MODALITIES_PATH = 'src/generated/modalities.ts';

interface ModalityExtension {
  modality: string;
  sync: boolean;
  prompt_field: string | null;
  image: 'none' | 'optional' | 'required';
}

/**
 * Each modality's endpoint as the server declares it (`x-mmgen-modality` on its operation): the path the SDK's
 * create methods post to, whether it answers synchronously, its prompt field and its image rule. In the
 * document's order; deterministic for a given document.
 */
export function renderModalityEndpoints(document: Record<string, unknown>): string {
  const entries: string[] = [];
  const paths = (document.paths ?? {}) as Record<string, Record<string, { operationId?: string; 'x-mmgen-modality'?: ModalityExtension }>>;
  for (const [path, ops] of Object.entries(paths)) {
    for (const op of Object.values(ops)) {
      const m = op['x-mmgen-modality'];
      if (!m) continue;
      const fields = { path, operationId: op.operationId, sync: m.sync, promptField: m.prompt_field, image: m.image };
      entries.push(`  ${JSON.stringify(m.modality)}: ${JSON.stringify(fields).replace(/,"/g, ', "').replace(/":/g, '": ')},`);
    }
  }
  const version = (document.info as { version?: string } | undefined)?.version ?? 'unknown';
  return [
    '/* eslint-disable */',
    `// Generated from the x-mmgen-modality extensions of mmgen's GET /v1/openapi.json (API ${version}) by \`npm run generate -w @mmgen/sdk\`.`,
    '// Do not edit: a test fails when this file differs from what mmgen serves.',
    '',
    '/** Each modality\'s endpoint, as the server declares it: its path, whether it answers with the finished generation, its prompt field, its image rule. */',
    'export const MODALITY_ENDPOINTS = {',
    ...entries,
    '} as const;',
    '',
  ].join('\n');
}
