import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ARTIFACTS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '.artifacts');
export const PGLITE_TEMPLATE = join(ARTIFACTS_DIR, 'pglite-template.tar');
