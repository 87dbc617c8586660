/**
 * The dashboard's one palette for what is told apart by colour: the modalities (their glyphs and chart series) and
 * the series of other breakdowns. White text on every colour here meets WCAG 2 AA for normal text (4.5:1), because
 * a modality's colour carries its letter glyph (test/unit/palette.test.ts measures each).
 */
export const PALETTE = [
  '#4f46e5', // indigo
  '#be185d', // pink
  '#0f766e', // teal
  '#b45309', // amber
  '#7c3aed', // violet
  '#0369a1', // sky
  '#15803d', // green
  '#b91c1c', // red
  '#475569', // slate
  '#7e22ce', // purple
  '#4d7c0f', // lime
  '#c2410c', // orange
] as const;

/** The text colour every palette colour carries. */
export const ON_PALETTE = '#ffffff';
