import type { Rng } from './hash.js';

export type Rgb = readonly [number, number, number];

export function hslToRgb(h: number, s: number, l: number): Rgb {
  const hue = ((h % 360) + 360) % 360;
  const c = (1 - Math.abs(2 * l - 1)) * s;
  const x = c * (1 - Math.abs(((hue / 60) % 2) - 1));
  const m = l - c / 2;
  const [r, g, b] =
    hue < 60 ? [c, x, 0] : hue < 120 ? [x, c, 0] : hue < 180 ? [0, c, x] : hue < 240 ? [0, x, c] : hue < 300 ? [x, 0, c] : [c, 0, x];
  return [Math.round((r + m) * 255), Math.round((g + m) * 255), Math.round((b + m) * 255)];
}

export function hex(c: Rgb): string {
  return '#' + c.map((v) => v.toString(16).padStart(2, '0')).join('');
}

export interface Palette {
  /** Two or three background stops, dark to light or the reverse. */
  background: Rgb[];
  /** Accent colours for shapes. */
  accents: Rgb[];
  /** Darkest colour, for silhouettes. */
  shadow: Rgb;
}

/**
 * Harmonious colours from classic hue schemes, so that every seed gives a
 * pleasant picture rather than random noise (a human looks at these in staging).
 */
export function makePalette(rng: Rng): Palette {
  const base = rng.range(0, 360);
  const scheme = rng.pick([
    [0, 30, -30],
    [0, 180, 30],
    [0, 120, 240],
    [0, 150, 210],
    [0, 15, 40],
  ] as const);
  const hues = scheme.map((d) => base + d + rng.range(-8, 8));
  const [h0, h1, h2] = [hues[0] ?? base, hues[1] ?? base, hues[2] ?? base];
  const darkTop = rng.chance(0.5);
  const bgSat = rng.range(0.35, 0.75);
  const background = [
    hslToRgb(h0, bgSat, darkTop ? rng.range(0.12, 0.25) : rng.range(0.7, 0.85)),
    hslToRgb(h1, bgSat, rng.range(0.4, 0.6)),
    hslToRgb(h2, bgSat, darkTop ? rng.range(0.7, 0.85) : rng.range(0.15, 0.3)),
  ];
  const accents: Rgb[] = [];
  for (let i = 0; i < 5; i++) {
    const h = [h0, h1, h2][i % 3] ?? base;
    accents.push(hslToRgb(h + rng.range(-20, 20), rng.range(0.55, 0.95), rng.range(0.45, 0.7)));
  }
  return { background, accents, shadow: hslToRgb(h0, 0.4, 0.1) };
}
