import { describe, expect, it } from 'vitest';
import { MODALITY_INFO } from '../../web/src/lib/modalities.js';
import { ON_PALETTE, PALETTE } from '../../web/src/lib/palette.js';

/** WCAG 2's contrast ratio of two sRGB colours (#rrggbb): (L1 + 0.05) / (L2 + 0.05) of their relative luminances. */
function contrast(a: string, b: string): number {
  const luminance = (hex: string) => {
    const [r, g, bl] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4)) as [number, number, number];
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

describe("the dashboard's palette", () => {
  it('takes its text at 4.5:1 or more on every colour (WCAG 2 AA, normal text)', () => {
    // The formula against the figures the axe-core run gave: white on the old voice and chat colours.
    expect(contrast('#ffffff', '#14b8a6')).toBeCloseTo(2.48, 1);
    expect(contrast('#0ea5e9', '#ffffff')).toBeCloseTo(2.77, 1);
    const short = PALETTE.map((c) => ({ c, ratio: contrast(ON_PALETTE, c) })).filter((x) => x.ratio < 4.5);
    expect(short).toEqual([]);
  });

  it('gives every modality its own colour from it', () => {
    const colours = MODALITY_INFO.map((m) => m.color);
    for (const c of colours) expect(PALETTE).toContain(c);
    expect(new Set(colours).size).toBe(colours.length);
  });
});
