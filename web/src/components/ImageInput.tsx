import { useEffect, useId, useState } from 'react';
import { ApiError } from '../api/client.js';
import type { CreatedUpload } from '../api/types.js';
import { useSession } from '../session.js';
import { Button, describedBy, ErrorNotice } from './ui.js';

export interface ImageValue {
  upload_id?: string;
  image_url?: string;
}

const TYPES = ['image/png', 'image/jpeg', 'image/webp'];

/**
 * An image input for a generation: a file sent through a presigned upload
 * (POST /v1/uploads, then PUT the bytes), or a URL mmgen fetches.
 */
export function ImageInput({
  value,
  onChange,
  required,
  error,
  label = 'Input image',
}: {
  value: ImageValue;
  onChange: (v: ImageValue) => void;
  required: boolean;
  error?: string | undefined;
  label?: string;
}) {
  const { api, can } = useSession();
  const id = useId();
  const [tab, setTab] = useState<'file' | 'url'>(value.image_url ? 'url' : 'file');
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<unknown>(null);
  const [preview, setPreview] = useState<string | null>(null);
  const perm = can('createUpload');

  useEffect(() => () => (preview ? URL.revokeObjectURL(preview) : undefined), [preview]);

  async function upload(file: File) {
    setFailure(null);
    if (!TYPES.includes(file.type)) {
      setFailure(new ApiError(0, 'parameter_invalid', `Choose a PNG, JPEG or WebP image (this file is ${file.type || 'of an unknown type'}).`));
      return;
    }
    setBusy(true);
    try {
      const up = await api.post<CreatedUpload>('/v1/uploads', { content_type: file.type, size_bytes: file.size });
      // The presigned URL is the credential of this PUT: no API key is sent with it.
      const res = await fetch(up.upload_url!, { method: 'PUT', headers: up.headers ?? { 'Content-Type': file.type }, body: file, credentials: 'omit' });
      if (!res.ok) {
        const body = (await res.json().catch(() => null)) as { error?: { code: string; message: string } } | null;
        throw new ApiError(res.status, body?.error?.code ?? 'upload_failed', body?.error?.message ?? `The upload failed (HTTP ${res.status}).`);
      }
      setPreview(URL.createObjectURL(file));
      onChange({ upload_id: up.id });
    } catch (err) {
      setFailure(err);
      onChange({});
    } finally {
      setBusy(false);
    }
  }

  return (
    <fieldset className={`field image-input${error ? ' field-invalid' : ''}`}>
      <legend>
        {label}
        {required ? <span className="required"> *</span> : <span className="muted"> (optional)</span>}
      </legend>
      <div className="segmented" role="group" aria-label="Image source">
        <button type="button" aria-pressed={tab === 'file'} onClick={() => setTab('file')}>
          Upload a file
        </button>
        <button type="button" aria-pressed={tab === 'url'} onClick={() => setTab('url')}>
          Image URL
        </button>
      </div>
      {tab === 'file' ? (
        <div className="image-input-row">
          <input
            id={`${id}-file`}
            type="file"
            accept={TYPES.join(',')}
            aria-label="Image file (PNG, JPEG or WebP)"
            disabled={busy || !perm.ok}
            aria-describedby={describedBy(`${id}-file`, null, error)}
            onChange={(e) => {
              const f = e.target.files?.[0];
              if (f) void upload(f);
            }}
          />
          {busy && <span className="muted">Uploading…</span>}
          {value.upload_id && !busy && (
            <span className="upload-done">
              {preview && <img src={preview} alt="The uploaded image" className="thumb" />}
              <code>{value.upload_id}</code>
              <Button size="sm" variant="ghost" onClick={() => onChange({})}>
                Remove
              </Button>
            </span>
          )}
          {!perm.ok && <span className="perm-hint">{perm.reason}</span>}
        </div>
      ) : (
        <input
          type="url"
          aria-label="Image URL"
          placeholder="https://…"
          value={value.image_url ?? ''}
          onChange={(e) => onChange(e.target.value ? { image_url: e.target.value } : {})}
        />
      )}
      {error && (
        <div className="field-error" id={`${id}-file-error`} role="alert">
          {error}
        </div>
      )}
      {failure ? <ErrorNotice error={failure} title="Upload failed" /> : null}
    </fieldset>
  );
}
