import { describe, expect, it } from 'vitest';
import { CATALOG } from '../../src/catalog/models.js';
import { Catalog } from '../../src/catalog/index.js';
import { recordedLifecycle } from '../../src/providers/lifecycle.js';
import { SHIPPED_RECORDS, shippedRecord } from '../../src/providers/upstream-models.js';

/**
 * Every fact of the shipped catalog about the outside world has a source (issue 28 item 3): for every active
 * model, each route's record exists, says where its price was read (`price_source`: a first-party URL, or an
 * estimate saying how it was made) and where its lifecycle was checked (`lifecycle.source`); and no active model
 * is routed to an upstream past its shutdown date, as the lifecycle code reads the records today (the real clock:
 * a shutdown date passing makes this fail until the catalog says so). One case per provider, so that each
 * provider's records are judged on their own.
 */
const CHECKED_ON = new Date().toISOString().slice(0, 10);
const PROVIDERS = ['openai', 'anthropic', 'elevenlabs', 'fal', 'replicate'] as const;
const active = CATALOG.filter((m) => m.status === 'active');
const lifecycle = recordedLifecycle(CHECKED_ON, SHIPPED_RECORDS);

describe('catalog sources', () => {
  for (const provider of PROVIDERS) {
    it(`${provider}: every active model's route has a record with a sourced price and lifecycle, and none is past its shutdown`, () => {
      const problems: string[] = [];
      let routes = 0;
      for (const model of active) {
        const served = new Set(lifecycle.liveRoutes(model, CHECKED_ON).routes.map((r) => r.upstream));
        for (const [i, route] of model.routes.entries()) {
          if (route.provider !== provider) continue;
          routes++;
          const where = `${model.slug} → ${route.upstream}${i === 0 ? ' (primary)' : ''}`;
          const record = shippedRecord(route.provider, route.upstream);
          if (!record) {
            problems.push(`${where}: no record`);
            continue;
          }
          if (!/^(https?:\/\/\S+|estimate: \S.*)/s.test(record.price_source ?? '')) problems.push(`${where}: price_source is neither a URL nor "estimate: …" (${record.price_source})`);
          if (!record.lifecycle.source?.trim()) problems.push(`${where}: lifecycle.source is missing`);
          if (!served.has(route.upstream)) problems.push(`${where}: shut down upstream on ${record.lifecycle.shutdown}, on or before ${CHECKED_ON}`);
        }
      }
      expect(problems).toEqual([]);
      expect(routes, `${provider} routes checked`).toBeGreaterThan(0);
    });
  }

  it('ships every model whose upstreams have all shut down as delisted, with the last shutdown date, and no other', () => {
    // A model may be shipped delisted before its day, with that date: it is served until then (Catalog.onDate), so a
    // shutdown known a few days ahead need not turn the suite red on the day. Whether anything is routed past its
    // date, today, is the test above.
    const problems: string[] = [];
    for (const model of CATALOG) {
      const today = lifecycle.liveRoutes(model, CHECKED_ON);
      if (today.routes.length === 0 && (model.status !== 'delisted' || model.retired_on !== today.lastShutdown)) {
        problems.push(`${model.slug}: every upstream shut down (the last on ${today.lastShutdown}), shipped ${model.status}, retired_on ${model.retired_on}`);
      }
      if (model.retired_on === undefined) continue;
      // A shutdown date given for a model is its routes' recorded last one.
      const ever = lifecycle.liveRoutes(model, '9999-12-31');
      if (ever.routes.length > 0 || model.retired_on !== ever.lastShutdown || model.status !== 'delisted') {
        problems.push(`${model.slug}: retired_on ${model.retired_on}, but its records say ${ever.routes.length} route(s) never shut down, the last shutdown ${ever.lastShutdown}`);
      }
      // Before that date the catalog serves it; from it on, it answers 410.
      const served = new Catalog([model], recordedLifecycle(CHECKED_ON, SHIPPED_RECORDS)).find(model.slug)?.status;
      const expected = CHECKED_ON < model.retired_on ? 'active' : 'delisted';
      if (served !== expected) problems.push(`${model.slug}: served ${served} on ${CHECKED_ON}, retired_on ${model.retired_on}`);
    }
    expect(problems).toEqual([]);
  });



  it('serves each ElevenLabs music model by an id ElevenLabs\' own SDK lists, at a pinned commit', () => {
    // A music model id is a fact no price page states: music_v2_5 was once sourced only to an npm release not in reach.
    const unsourced = active
      .flatMap((m) => m.routes.filter((r) => r.provider === 'elevenlabs' && m.modality === 'music'))
      .filter((r) => !shippedRecord(r.provider, r.upstream)!.sources.some((s) => /^github elevenlabs\/[\w.-]+ @ [0-9a-f]{40}\b/.test(s) && s.includes(`"${r.upstream}"`)))
      .map((r) => r.upstream);
    expect(unsourced).toEqual([]);
  });
});
