import { ApiError } from '../api/client.js';
import { readApiSpec } from '../api/spec.js';
import { useResource } from './hooks.js';

export interface PasswordRule {
  /** "At least N characters.", or a blank line until the spec is read, so that nothing moves when it is. */
  hint: string;
  /** The error to show before sending a password shorter than the server takes; null when it is long enough or unknown. */
  tooShort: (password: string) => ApiError | null;
}

/**
 * What a new password needs in `operationId`: the server's own minimum (its request schema's `password.minLength` in
 * /v1/openapi.json), for pages outside a session (sign-up, accepting an invitation). The server checks it anyway.
 */
export function usePasswordRule(operationId: string): PasswordRule {
  const spec = useResource(() => readApiSpec(), []);
  const min = spec.data?.op(operationId)?.requestSchema?.properties?.password?.minLength;
  return {
    hint: min !== undefined ? `At least ${min} characters.` : '\u00a0',
    tooShort: (password) => (min !== undefined && password.length < min ? new ApiError(0, 'parameter_invalid', `A password needs at least ${min} characters.`, 'password') : null),
  };
}
