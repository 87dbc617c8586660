import { Type } from '@sinclair/typebox';
import { getWallet } from '../../billing/credits.js';
import { defineRoute } from '../route.js';

export const Wallet = Type.Object(
  {
    object: Type.Literal('wallet'),
    balance_credits: Type.Integer({ description: 'Credits owned; 1 credit = US$0.001.' }),
    held_credits: Type.Integer({ description: 'Credits reserved for generations in flight.' }),
    available_credits: Type.Integer({ description: 'balance − held: what new requests can reserve.' }),
  },
  { title: 'Wallet' },
);

export const retrieveWallet = defineRoute({
  method: 'GET',
  path: '/v1/wallet',
  operationId: 'getWallet',
  summary: "The organization's credit wallet",
  description: 'Test-mode keys read the same wallet; they never move it.',
  tag: 'Wallet',
  auth: { role: 'viewer', scope: 'usage:read' },
  schema: { response: { 200: Wallet } },
  handler: async ({ principal, deps }) => ({ status: 200, body: await getWallet(deps.db, principal.organizationId) }),
});
