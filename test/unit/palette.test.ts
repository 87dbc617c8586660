import { readFileSync } from 'node:fs';
import postcss, { type AtRule, type Rule } from 'postcss';
import { describe, expect, it } from 'vitest';
import { MODALITY_INFO } from '../../web/src/lib/modalities.js';
import { ON_PALETTE, PALETTE, type Scheme } from '../../web/src/lib/palette.js';
import { contrast, linearRgb } from '../helpers/contrast.js';

/** CIELAB (D65) of an sRGB colour, and the CIE76 distance of two: how far apart two series look, roughly. */
function lab(hex: string): [number, number, number] {
  const [r, g, b] = linearRgb(hex);
  const xyz = [(0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047, 0.2126 * r + 0.7152 * g + 0.0722 * b, (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883];
  const [fx, fy, fz] = xyz.map((t) => (t > 216 / 24389 ? Math.cbrt(t) : (24389 / 27 * t + 16) / 116)) as [number, number, number];
  return [116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)];
}
const deltaE = (a: string, b: string) => Math.hypot(...lab(a).map((v, i) => v - lab(b)[i]!));

/**
 * The stylesheet's custom properties in each scheme, as the browser resolves them: the top-level `:root` rule, and
 * for the dark scheme that rule's overrides inside `@media (prefers-color-scheme: dark)`. Read from the file, so that
 * a change of the card's colour is measured here too.
 */
const CSS = postcss.parse(readFileSync(new URL('../../web/src/styles.css', import.meta.url), 'utf8'));
function variables(scheme: Scheme): Map<string, string> {
  const vars = new Map<string, string>();
  const take = (rule: Rule) => rule.walkDecls(/^--/, (d) => void vars.set(d.prop, d.value.trim()));
  CSS.each((node) => {
    if (node.type === 'rule' && node.selector === ':root') take(node);
  });
  if (scheme === 'dark') {
    CSS.walkAtRules('media', (at: AtRule) => {
      if (/prefers-color-scheme:\s*dark/.test(at.params)) at.each((n) => void (n.type === 'rule' && n.selector === ':root' && take(n)));
    });
  }
  return vars;
}

/** A declaration's value in a scheme with its `var(--x)` resolved, from the rule with exactly this selector. */
function resolved(selector: string, prop: string, scheme: Scheme): string {
  const vars = variables(scheme);
  let value: string | undefined;
  CSS.each((node) => {
    if (node.type === 'rule' && node.selector === selector) node.walkDecls(prop, (d) => void (value = d.value.trim()));
  });
  expect(value, `${selector} { ${prop} } in styles.css`).toBeDefined();
  for (let i = 0; i < 5 && value!.startsWith('var('); i++) value = vars.get(/^var\((--[\w-]+)/.exec(value!)![1]!);
  expect(value, `${selector} { ${prop} } resolved in the ${scheme} scheme`).toMatch(/^#[0-9a-f]{6}$/i);
  return value!;
}

const SCHEMES = ['light', 'dark'] as const;

describe("the dashboard's palette", () => {
  it('takes its text at 4.5:1 or more on every colour (WCAG 2 AA, normal text): the glyphs, in both schemes', () => {
    // The formula against the figures the axe-core run gave: white on the old voice and chat colours.
    expect(contrast('#ffffff', '#14b8a6')).toBeCloseTo(2.48, 1);
    expect(contrast('#0ea5e9', '#ffffff')).toBeCloseTo(2.77, 1);
    const short = PALETTE.map((c) => ({ c: c.light, ratio: contrast(ON_PALETTE, c.light) })).filter((x) => x.ratio < 4.5);
    expect(short).toEqual([]);
  });

  it("reads the card's colour and the chart's text colour from styles.css in each scheme", () => {
    expect(resolved('.card', 'background', 'light')).toBe(variables('light').get('--surface'));
    expect(resolved('.card', 'background', 'dark')).toBe(variables('dark').get('--surface'));
    expect(variables('light').get('--surface')).not.toBe(variables('dark').get('--surface'));
  });

  for (const scheme of SCHEMES) {
    it(`draws every series at 3:1 or more against the card in the ${scheme} scheme (WCAG 2.1 SC 1.4.11, graphical objects)`, () => {
      const card = resolved('.card', 'background', scheme);
      const short = PALETTE.map((c) => ({ c: c[scheme], card, ratio: contrast(c[scheme], card) })).filter((x) => x.ratio < 3);
      expect(short).toEqual([]);
    });

    it(`writes the chart's ticks and legend (--text-muted) at 4.5:1 or more on the card in the ${scheme} scheme`, () => {
      const text = variables(scheme).get('--text-muted')!;
      expect(contrast(text, resolved('.card', 'background', scheme))).toBeGreaterThanOrEqual(4.5);
    });

    it(`keeps the series apart in the ${scheme} scheme: distinct colours, the modalities' at least 12 CIELAB units apart`, () => {
      const all = PALETTE.map((c) => c[scheme].toLowerCase());
      expect(new Set(all).size).toBe(all.length);
      const near: string[] = [];
      MODALITY_INFO.forEach((a, i) =>
        MODALITY_INFO.slice(i + 1).forEach((b) => {
          const d = deltaE(a.color[scheme], b.color[scheme]);
          if (d < 12) near.push(`${a.id} ${a.color[scheme]} ~ ${b.id} ${b.color[scheme]}: ${d.toFixed(1)}`);
        }),
      );
      expect(near).toEqual([]);
    });
  }

  it('measures distance in CIELAB as published: white, black and sRGB red', () => {
    expect(lab('#ffffff').map((v) => Math.round(v) + 0)).toEqual([100, 0, 0]);
    expect(lab('#000000').map((v) => Math.round(v) + 0)).toEqual([0, 0, 0]);
    const [l, a, b] = lab('#ff0000');
    expect([l, a, b].map((v) => Math.round(v) + 0)).toEqual([53, 80, 67]);
  });

  it('gives every modality its own colour from it', () => {
    const colours = MODALITY_INFO.map((m) => m.color);
    for (const c of colours) expect(PALETTE).toContain(c);
    expect(new Set(colours).size).toBe(colours.length);
  });
});
