import { MODALITIES, type Modality } from '../catalog/index.js';
import { PLANS, type Plan } from '../domain/access.js';
import { recordedTopUp } from '../billing/credits.js';
import { operatorOrigin } from '../domain/audit.js';
import { createOrganization, getOrganization, setPaused, setPlan } from '../domain/organizations.js';
import { addModel, describeCatalog, editModel, modelAccessOf, readAudit, setGlobalMargin, setModelAccess } from '../domain/catalog-admin.js';
import { verifyAuditChains } from '../domain/audit.js';
import { importModel } from '../domain/catalog-import.js';
import { syncPorts, syncRunningCatalog } from '../domain/catalog-sync.js';
import { publishedSchemas } from '../providers/schema-import.js';
import type { AppDeps } from '../deps.js';
import { newId } from '../ids.js';

/**
 * Operator commands as plain data in, plain data out, so the CLI can run them
 * against the database directly or, when `serve` holds the embedded database,
 * through the server's local admin socket.
 */
export type AdminCommand =
  | { name: 'org.create'; args: { actor: string; name: string; plan: Plan; enterprise: boolean; credits: number } }
  | { name: 'org.set-plan'; args: { actor: string; org: string; plan: Plan; enterprise?: boolean | undefined } }
  | { name: 'org.unpause'; args: { actor: string; org: string } }
  | { name: 'wallet.topup'; args: { actor: string; org: string; credits: number; reference?: string | undefined } }
  | { name: 'audit.verify'; args: Record<string, never> }
  | { name: 'models.list'; args: { modality?: Modality | undefined; includeDelisted?: boolean | undefined } }
  | CatalogCommand;

/**
 * The operator's catalog changes (`mmgen catalog …`, cli-catalog.ts), the admin API's operations: `body` is what
 * the API's body would be, checked by the same schema (domain/catalog-admin.ts); `actor` names who, for the audit.
 */
export type CatalogCommand =
  | { name: 'catalog.list'; args: Record<string, never> }
  | { name: 'catalog.add'; args: { actor: string; body: unknown } }
  | { name: 'catalog.import'; args: { actor: string; body: unknown } }
  | { name: 'catalog.sync'; args: { actor: string; body: unknown } }
  | { name: 'catalog.edit'; args: { actor: string; slug: string; body: unknown } }
  | { name: 'catalog.margin'; args: { actor: string; body: unknown } }
  | { name: 'catalog.access'; args: { actor: string; org: string; body?: unknown } }
  | { name: 'catalog.audit'; args: { limit: number; target?: string | undefined } };

export class AdminCommandError extends Error {}

function check(cond: boolean, message: string): void {
  if (!cond) throw new AdminCommandError(message);
}

export function validateCommand(cmd: AdminCommand): void {
  switch (cmd.name) {
    case 'org.create':
      check(typeof cmd.args.name === 'string' && cmd.args.name.length > 0 && cmd.args.name.length <= 200, '--name is required (1 to 200 characters)');
      check(PLANS.includes(cmd.args.plan), `--plan must be one of ${PLANS.join(', ')}`);
      check(Number.isSafeInteger(cmd.args.credits) && cmd.args.credits >= 0, '--credits must be a non-negative integer');
      break;
    case 'org.set-plan':
      check(PLANS.includes(cmd.args.plan), `--plan must be one of ${PLANS.join(', ')}`);
      check(!!cmd.args.org, '--org is required');
      break;
    case 'org.unpause':
      check(!!cmd.args.org, '--org is required');
      break;
    case 'wallet.topup':
      check(!!cmd.args.org, '--org is required');
      check(Number.isSafeInteger(cmd.args.credits) && cmd.args.credits > 0, '--credits must be a positive integer');
      break;
    case 'models.list':
      check(cmd.args.modality === undefined || MODALITIES.includes(cmd.args.modality), `--modality must be one of ${MODALITIES.join(', ')}`);
      break;
    case 'catalog.edit':
      check(!!cmd.args.slug, 'the model to edit is required');
      break;
    case 'catalog.access':
      check(!!cmd.args.org, '--org is required');
      break;
    case 'catalog.audit':
      check(Number.isSafeInteger(cmd.args.limit) && cmd.args.limit >= 1 && cmd.args.limit <= 500, '--limit must be from 1 to 500');
      break;
  }
}

/**
 * What the commands reach; `jobsAvailable` wakes the worker of the process that unpauses (a CLI process has none:
 * the nodes poll), `catalogFollower` reloads the catalog of the process that changed it (the others follow).
 */
export type AdminPorts = Pick<AppDeps, 'db' | 'catalog' | 'jobsAvailable' | 'catalogFollower' | 'providers'> & { config: Pick<AppDeps['config'], 'providers' | 'catalogDate'> };

export async function runAdminCommand(ports: AdminPorts, cmd: AdminCommand): Promise<unknown> {
  const { db, catalog } = ports;
  validateCommand(cmd);
  switch (cmd.name) {
    case 'org.create': {
      const { actor, ...input } = cmd.args;
      const created = await createOrganization(db, input, operatorOrigin(actor));
      return { organization: created.organization, user: created.user, keys: created.keys };
    }
    case 'org.set-plan':
      return setPlan(db, cmd.args.org, cmd.args.plan, cmd.args.enterprise, operatorOrigin(cmd.args.actor));
    case 'org.unpause':
      return setPaused(ports, cmd.args.org, false, operatorOrigin(cmd.args.actor));
    case 'wallet.topup': {
      const { org, credits } = cmd.args;
      await getOrganization(db, org);
      return recordedTopUp(db, { organizationId: org, credits, reference: cmd.args.reference ?? `cli-topup:${newId('req')}`, note: 'operator top-up' }, operatorOrigin(cmd.args.actor));
    }
    case 'models.list':
      return catalog.list({ modality: cmd.args.modality, includeDelisted: cmd.args.includeDelisted });
    case 'catalog.list':
      return describeCatalog(ports);
    case 'catalog.add':
      return addModel(ports, cmd.args.actor, cmd.args.body);
    case 'catalog.import':
      return importModel({ ...ports, schemas: publishedSchemas(ports.config.providers) }, cmd.args.actor, cmd.args.body);
    case 'catalog.sync':
      return syncRunningCatalog(syncPorts(ports), cmd.args.actor, cmd.args.body);
    case 'catalog.edit':
      return editModel(ports, cmd.args.actor, cmd.args.slug, cmd.args.body);
    case 'catalog.margin':
      return setGlobalMargin(ports, cmd.args.actor, cmd.args.body);
    case 'catalog.access':
      if (cmd.args.body === undefined) {
        await getOrganization(db, cmd.args.org);
        return modelAccessOf(ports, cmd.args.org);
      }
      return setModelAccess(ports, cmd.args.actor, cmd.args.org, cmd.args.body);
    case 'audit.verify':
      return verifyAuditChains(db);
    case 'catalog.audit':
      return readAudit(ports, { limit: cmd.args.limit, target: cmd.args.target });
  }
}


