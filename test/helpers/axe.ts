import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AxeResults, ImpactValue } from 'axe-core';
import type { Page } from 'playwright-core';

/**
 * axe-core (Deque's accessibility engine, the one Lighthouse runs) in a page of the browser tests: its source is
 * evaluated in the page, so the dashboard's Content-Security-Policy, which allows no inline script, is left as it is.
 */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** WCAG 2.0, 2.1 and 2.2, levels A and AA: what the issue measured the dashboard by. */
const WCAG_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

const FAILING: readonly ImpactValue[] = ['serious', 'critical'];

/**
 * The serious and critical WCAG A/AA violations axe finds in the page as it is now, one line per element:
 * the rule, the element's selector and what axe says is wrong (contrast ratios included).
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(AXE_SOURCE);
  const results = (await page.evaluate(`window.axe.run(document, { runOnly: { type: 'tag', values: ${JSON.stringify(WCAG_AA)} }, resultTypes: ['violations'] })`)) as AxeResults;
  return results.violations
    .filter((v) => v.impact && FAILING.includes(v.impact))
    .flatMap((v) => v.nodes.map((n) => `${v.impact} ${v.id}: ${n.target.join(' ')}: ${(n.failureSummary ?? v.help).replace(/\s+/g, ' ').trim()}`));
}
