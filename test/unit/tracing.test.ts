import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.js';
import { ProviderError } from '../../src/providers/types.js';
import { errorType, logTraceIds, NO_TRACING } from '../../src/tracing.js';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return /\.(ts|mts|mjs|js)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

describe('the tracing port', () => {
  it('keeps OpenTelemetry in its two modules (traces, the metrics export): nothing else under src/ imports @opentelemetry/, statically or dynamically', () => {
    const root = process.cwd();
    const importers = sources(join(root, 'src')).filter((file) => {
      const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
      return info.importedFiles.some((f) => f.fileName.startsWith('@opentelemetry/'));
    });
    expect(importers.map((f) => relative(root, f)).sort()).toEqual(['src/metrics-otel.ts', 'src/tracing-otel.ts']);
  });

  it('off, a stage runs as if untraced: its own promise handed back, no span, no context, no header', async () => {
    const p = Promise.resolve(42);
    expect(NO_TRACING.span('x', { a: 1 }, () => p)).toBe(p);
    await expect(NO_TRACING.span('x', {}, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    const headers: Record<string, string> = {};
    NO_TRACING.inject(headers);
    expect(headers).toEqual({});
    expect(NO_TRACING.on).toBe(false);
    expect(logTraceIds()).toEqual({});
  });

  it('names a failure by its code or kind, never by its message', () => {
    expect(errorType(new ApiError('insufficient_credits', 'needs 12 credits for "my secret prompt"'))).toBe('insufficient_credits');
    expect(errorType(new ProviderError('replicate: my secret prompt is too long', { kind: 'bad_request', retryable: false, accepted: false, origin: 'gateway' }))).toBe('bad_request');
    expect(errorType(new TypeError('x is my secret'))).toBe('TypeError');
    expect(errorType('a thrown string with a secret')).toBe('_OTHER');
    expect(errorType({ code: 'has spaces and a secret' , name: 'Error' })).toBe('Error');
  });
});
