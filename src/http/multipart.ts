import busboy from 'busboy';
import { ApiError } from '../errors.js';

/** One file part of a multipart form. */
export interface FormFile {
  filename: string;
  /** As the part declares it (application/octet-stream when it says nothing). */
  contentType: string;
  bytes: Buffer;
}

/** A multipart form: text fields by name (one value each), file parts by name (`image[]` counts as `image`). */
export interface Form {
  fields: Record<string, string>;
  files: Record<string, FormFile[]>;
}

export interface FormLimits {
  maxFiles: number;
  maxFileBytes: number;
  maxFields: number;
  maxFieldBytes: number;
}

const baseName = (name: string): string => (name.endsWith('[]') ? name.slice(0, -2) : name);

/**
 * A whole multipart/form-data body, already in memory (bounded by the route's body limit), read with busboy.
 * Every problem is a 400 (or 413 for a file over the limit), never a 500: a frame that does not parse, a field
 * sent twice, a part over the limits.
 */
export function parseMultipart(bytes: Buffer, contentType: string, limits: FormLimits): Promise<Form> {
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: { 'content-type': contentType },
        limits: { files: limits.maxFiles, fileSize: limits.maxFileBytes, fields: limits.maxFields, fieldSize: limits.maxFieldBytes, parts: limits.maxFiles + limits.maxFields },
      });
    } catch {
      reject(new ApiError('parameter_invalid', 'The multipart/form-data body needs a boundary in its Content-Type.', 'Content-Type'));
      return;
    }
    const form: Form = { fields: {}, files: {} };
    let failed: ApiError | null = null;
    const fail = (err: ApiError) => {
      failed ??= err;
    };
    bb.on('field', (name, value, info) => {
      const key = baseName(name);
      if (info.valueTruncated) fail(new ApiError('parameter_invalid', `The field ${key} is longer than ${limits.maxFieldBytes} bytes.`, key));
      else if (key in form.fields) fail(new ApiError('parameter_invalid', `The field ${key} is sent more than once.`, key));
      else form.fields[key] = value;
    });
    bb.on('file', (name, stream, info) => {
      const key = baseName(name);
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('limit', () => fail(new ApiError('payload_too_large', `The ${key} file is larger than ${limits.maxFileBytes} bytes.`)));
      stream.on('close', () => {
        (form.files[key] ??= []).push({ filename: info.filename ?? '', contentType: info.mimeType || 'application/octet-stream', bytes: Buffer.concat(chunks) });
      });
    });
    bb.on('filesLimit', () => fail(new ApiError('parameter_invalid', `The form has more than ${limits.maxFiles} files.`)));
    bb.on('fieldsLimit', () => fail(new ApiError('parameter_invalid', `The form has more than ${limits.maxFields} fields.`)));
    bb.on('partsLimit', () => fail(new ApiError('parameter_invalid', 'The form has too many parts.')));
    bb.on('error', () => reject(new ApiError('parameter_invalid', 'The body is not a valid multipart/form-data message.')));
    bb.on('close', () => (failed ? reject(failed) : resolve(form)));
    bb.end(bytes);
  });
}
