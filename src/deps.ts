import type { Logger } from 'pino';
import type { Catalog } from './catalog/index.js';
import type { Config } from './config.js';
import type { Db } from './store/db.js';

/** Everything a use case or route may need, built once from config (composition root: main.ts). */
export interface AppDeps {
  config: Config;
  db: Db;
  catalog: Catalog;
  log: Logger;
}
