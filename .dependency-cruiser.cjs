/**
 * The architecture's dependency rules (docs/architecture.md, "Rules"), checked in `npm test`
 * by test/unit/architecture.test.ts. A broken rule is fixed in the code, never loosened here.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycles, type-only imports included: a cycle hides which module owns what.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'use-cases-know-no-http',
      comment: 'Use cases (domain, generations, billing) never reach src/http/, not even through another module.',
      severity: 'error',
      from: { path: '^src/(domain|generations|billing)/' },
      to: { path: '^src/http/', reachable: true },
    },
    {
      name: 'providers-know-no-store',
      comment: 'Providers get values and return values: no provider reaches the store.',
      severity: 'error',
      from: { path: '^src/providers/' },
      to: { path: '^src/store/', reachable: true },
    },
    {
      name: 'store-imports-only-leaves',
      comment:
        'The store owns the SQL and knows no use case: besides its own modules it imports only the access types ' +
        '(a leaf), the catalog, ids, and the simulator-jobs port it implements.',
      severity: 'error',
      from: { path: '^src/store/' },
      to: {
        path: '^src/',
        pathNot: '^src/(store/|domain/access[.]ts$|catalog/|ids[.]ts$|providers/simulator/jobs[.]ts$)',
      },
    },
    {
      name: 'money-only-through-billing',
      comment:
        'The statements that move money (the ledger and wallets, the reservation in the accepting statement, the ' +
        'charge and release in the finishing statement) are reached only through src/billing/.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(billing|store)/' },
      to: { path: '^src/store/(ledger|accepting|finishing)[.]ts$' },
    },
    {
      name: 'media-knows-no-simulator',
      comment: 'src/media/ holds the production media utilities; the simulator renderers build on them, never the reverse.',
      severity: 'error',
      from: { path: '^src/media/' },
      to: { path: '^src/providers/' },
    },
    {
      name: 'tracing-sdk-only-when-configured',
      comment:
        'Tracing and the OTLP metrics export off load no OpenTelemetry SDK module: their implementations (tracing-otel.ts, ' +
        'metrics-otel.ts) are imported dynamically (main.ts), never statically, types included. (That no other module imports ' +
        '@opentelemetry/ is test/unit/tracing.test.ts: node_modules are excluded here.)',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^src/(tracing|metrics)-otel[.]ts$', dynamic: false },
    },
    {
      name: 'web-only-through-sdk-or-v1',
      comment: 'The dashboard talks to the server only over /v1 (or through the SDK): it imports no server, test or bench code.',
      severity: 'error',
      from: { path: '^web/' },
      to: { path: '^(src|test|bench|examples)/' },
    },
  ],
  options: {
    tsConfig: { fileName: 'tsconfig.json' },
    // Type-only imports count: a cycle of types is still a cycle of knowledge.
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/' },
  },
};
