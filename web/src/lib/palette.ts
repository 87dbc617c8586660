/** The stylesheet's two colour schemes (`prefers-color-scheme` in styles.css). */
export type Scheme = 'light' | 'dark';

/** One colour of the palette in each scheme: the same hue, the dark one a lighter tint of it. */
export interface PaletteColor {
  readonly light: string;
  readonly dark: string;
}

/**
 * The dashboard's one palette for what is told apart by colour: the modalities (their glyphs and chart series) and
 * the series of other breakdowns. test/unit/palette.test.ts measures each entry against the stylesheet's own values:
 *
 * - `light`: white text on it meets WCAG 2 AA for normal text (4.5:1), because a modality's colour carries its letter
 *   glyph, in both schemes; as a bar it is then far above the 3:1 that SC 1.4.11 asks of graphics on the light card.
 * - `dark`: a bar drawn on the dark card (`--surface`), where the light colours fall to 2.3–3.5:1, so each gets a
 *   lighter tint of its hue at 3:1 or more. Violet takes its 300 tint rather than 400, which sat too near indigo's.
 */
export const PALETTE = [
  { light: '#4f46e5', dark: '#818cf8' }, // indigo
  { light: '#be185d', dark: '#f472b6' }, // pink
  { light: '#0f766e', dark: '#2dd4bf' }, // teal
  { light: '#b45309', dark: '#fbbf24' }, // amber
  { light: '#7c3aed', dark: '#c4b5fd' }, // violet
  { light: '#0369a1', dark: '#38bdf8' }, // sky
  { light: '#15803d', dark: '#4ade80' }, // green
  { light: '#b91c1c', dark: '#f87171' }, // red
  { light: '#475569', dark: '#94a3b8' }, // slate
  { light: '#7e22ce', dark: '#c084fc' }, // purple
  { light: '#4d7c0f', dark: '#a3e635' }, // lime
  { light: '#c2410c', dark: '#fb923c' }, // orange
] as const satisfies readonly PaletteColor[];

/**
 * The text colour every palette colour's `light` value carries. Glyphs keep the `light` value in the dark scheme too:
 * their letters are the text that must be read, and white on a `dark` tint would fall short of 4.5:1.
 */
export const ON_PALETTE = '#ffffff';
