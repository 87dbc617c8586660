import { useCallback, useState } from 'react';
import { ApiError } from '../api/client.js';
import { listField, type FieldErrors } from './schema.js';

/** A button's asynchronous work: which action is running (one at a time) and how the last one failed. */
export function useAction<K extends string = string>() {
  const [busy, setBusy] = useState<K | null>(null);
  const [error, setError] = useState<unknown>(null);
  const run = useCallback(async (kind: K, fn: () => Promise<void>) => {
    setBusy(kind);
    setError(null);
    try {
      await fn();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(null);
    }
  }, []);
  return { busy, error, run };
}

/**
 * The submit cycle of a form: the dashboard's own checks first (nothing is
 * sent while they find something), then the request; an API error that names
 * a `param` is shown on that field too.
 */
export function useFormSubmit(fieldOf: (param: string) => string = listField) {
  const [errors, setErrors] = useState<FieldErrors>({});
  const action = useAction<'submit'>();
  const submit = async (found: FieldErrors, send: () => Promise<void>) => {
    setErrors(found);
    if (Object.keys(found).length) return;
    await action.run('submit', async () => {
      try {
        await send();
      } catch (err) {
        if (err instanceof ApiError && err.param) setErrors({ [fieldOf(err.param)]: err.message });
        throw err;
      }
    });
  };
  return { errors, busy: action.busy !== null, error: action.error, submit };
}
