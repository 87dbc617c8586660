import { describe, expect, it } from 'vitest';
import type { CatalogModel } from '../../src/catalog/index.js';
import { deprecationHeaders } from '../../src/http/deprecation-headers.js';
import { modelDeprecation } from '../../src/providers/parameters.js';
import { deprecationWarning, parseLinks } from '../../src/user-cli/deprecation.js';
import { SERVED_CATALOG } from '../helpers/catalog.js';
import { SHIPPED_RECORDS } from '../../src/providers/upstream-models.js';

const model = (slug: string): CatalogModel => SERVED_CATALOG.find(slug)!;
const deprecated = SERVED_CATALOG.models.filter((m) => m.status === 'active' && modelDeprecation(SHIPPED_RECORDS, m)?.replacement);
const current = SERVED_CATALOG.models.find((m) => m.status === 'active' && !modelDeprecation(SHIPPED_RECORDS, m))!;

describe('deprecation headers (http/deprecation-headers.ts)', () => {
  it('none for a model with no announced end, or none at all', () => {
    expect(deprecationHeaders(SHIPPED_RECORDS, [current], 'generation', (n) => SERVED_CATALOG.find(n))).toEqual({});
    expect(deprecationHeaders(SHIPPED_RECORDS, [null], 'generation', (n) => SERVED_CATALOG.find(n))).toEqual({});
  });

  it('links the replacement as successor-version only when the catalog serves it', () => {
    const m = deprecated[0]!;
    const d = modelDeprecation(SHIPPED_RECORDS, m)!;
    // The replacement the records name, served under its own slug (here another model stands in for it).
    const found = deprecationHeaders(SHIPPED_RECORDS, [m], 'generation', (n) => (n === d.replacement ? current : SERVED_CATALOG.find(n)));
    expect(parseLinks(found.link!)[0]).toEqual({ target: `/v1/models/${current.slug}`, params: { rel: 'successor-version' } });
    // Not served: no successor link (the model's description still names it in `deprecation.replacement`).
    const unserved = deprecationHeaders(SHIPPED_RECORDS, [m], 'generation', () => undefined);
    expect(parseLinks(unserved.link!).some((l) => l.params.rel === 'successor-version')).toBe(false);
    // A delisted replacement is no successor either.
    const delisted = SERVED_CATALOG.models.find((x) => x.status === 'delisted')!;
    expect(parseLinks(deprecationHeaders(SHIPPED_RECORDS, [m], 'generation', () => delisted).link!).some((l) => l.params.rel === 'successor-version')).toBe(false);
  });

  it('dates at 00:00 UTC of the records\' days: Deprecation in seconds, Sunset as an IMF-fixdate', () => {
    const m = model('gpt-4o-mini');
    const d = modelDeprecation(SHIPPED_RECORDS, m)!;
    const h = deprecationHeaders(SHIPPED_RECORDS, [m], 'model', () => undefined);
    expect(h.deprecation).toBe(`@${Date.parse(`${d.deprecated_on}T00:00:00Z`) / 1000}`);
    expect(h.sunset).toBe(new Date(`${d.shutdown_on}T00:00:00Z`).toUTCString());
    expect(h.sunset).toMatch(/^\w{3}, \d{2} \w{3} \d{4} 00:00:00 GMT$/);
  });
});

describe('the user CLI\'s warning (user-cli/deprecation.ts)', () => {
  it('parses Link fields with commas and semicolons inside targets and quoted values', () => {
    expect(parseLinks('<https://a.example/x,y;z>; rel="deprecation"; title="a, b; c", </v1/models/m>; rel=successor-version')).toEqual([
      { target: 'https://a.example/x,y;z', params: { rel: 'deprecation', title: 'a, b; c' } },
      { target: '/v1/models/m', params: { rel: 'successor-version' } },
    ]);
    expect(parseLinks('')).toEqual([]);
  });

  it('says which model, since when, until when and what replaces it; nothing without Deprecation', () => {
    const h = new Headers({
      deprecation: `@${Date.UTC(2026, 9, 14) / 1000}`,
      sunset: 'Thu, 14 Jan 2027 00:00:00 GMT',
      link: '</v1/models/new-one>; rel="successor-version", </v1/models/old-one>; rel="deprecation"; type="application/json", <https://example.com/d>; rel="deprecation"',
    });
    expect(deprecationWarning(h)).toBe('mmgen: warning: old-one is deprecated (since 2026-10-14); shuts down 2027-01-14; successor: new-one; see: mmgen models show old-one');
    expect(deprecationWarning(new Headers({ link: '</v1/models/x>; rel="deprecation"' }))).toBeNull();
  });
});
