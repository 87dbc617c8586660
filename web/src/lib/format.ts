import type { Model, PricingUnit } from '../api/types.js';

/** 1 credit = US$0.001 (contract §4). Credits are integers; dollars are only ever displayed. */
export const CREDITS_PER_USD = 1000;

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 3 });
const int = new Intl.NumberFormat('en-US');

export function formatCredits(credits: number): string {
  return `${int.format(credits)} ${Math.abs(credits) === 1 ? 'credit' : 'credits'}`;
}

/** Integer credits as dollars: 42 → "$0.042", 12500 → "$12.50". */
export function creditsToUsd(credits: number): string {
  return usd.format(credits / CREDITS_PER_USD);
}

export function formatUsd(value: number): string {
  return usd.format(value);
}

export function formatInt(n: number): string {
  return int.format(n);
}

/** A price that stays readable when tiny: per-token prices are shown per million tokens. */
export function formatPrice(pricing: Model['pricing']): string {
  const unit = pricing.unit as PricingUnit;
  const money = (v: number) =>
    new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: v < 0.01 ? 6 : 3 }).format(v);
  switch (unit) {
    case 'output_token':
      return `${money(pricing.unit_cost_usd * 1_000_000)} / 1M output tokens`;
    case '1k_characters':
      return `${money(pricing.unit_cost_usd)} / 1K characters`;
    case 'second':
      return `${money(pricing.unit_cost_usd)} / second`;
    case 'image':
      return `${money(pricing.unit_cost_usd)} / image`;
    case 'mesh':
      return `${money(pricing.unit_cost_usd)} / mesh`;
    default:
      return `${money(pricing.unit_cost_usd)} / ${String(pricing.unit)}`;
  }
}

const dateTime = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'medium' });
const shortDate = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });

export function formatDateTime(iso: string | null | undefined): string {
  return iso ? dateTime.format(new Date(iso)) : '—';
}

export function formatShort(iso: string | null | undefined): string {
  return iso ? shortDate.format(new Date(iso)) : '—';
}

/** "3 s", "1 min 12 s", "850 ms". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s < 10 ? s.toFixed(1) : Math.round(s)} s`;
  const m = Math.floor(s / 60);
  return `${m} min ${Math.round(s - m * 60)} s`;
}

export function elapsed(from: string, to: string | null | undefined): number | null {
  if (!to) return null;
  return new Date(to).getTime() - new Date(from).getTime();
}

export function relativeTime(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return 'never';
  const d = (now - new Date(iso).getTime()) / 1000;
  if (d < 0) return `in ${formatDuration(-d * 1000)}`;
  if (d < 45) return 'just now';
  if (d < 3600) return `${Math.round(d / 60)} min ago`;
  if (d < 86_400) return `${Math.round(d / 3600)} h ago`;
  return `${Math.round(d / 86_400)} d ago`;
}

/** "num_outputs" → "Num outputs", unless a nicer label is known. */
const LABELS: Record<string, string> = {
  num_outputs: 'Images',
  negative_prompt: 'Negative prompt',
  duration_s: 'Duration (seconds)',
  aspect_ratio: 'Aspect ratio',
  with_vocals: 'With vocals',
  voice_id: 'Voice',
  face_restore: 'Face restoration',
  max_tokens: 'Max output tokens',
  image_url: 'Image URL',
  audio_url: 'Audio URL',
  upload_id: 'Upload',
  delay_ms: 'Delay (ms)',
  output_tokens: 'Output tokens',
  cache: 'Use the cache',
};

export function humanize(name: string): string {
  return LABELS[name] ?? (name.charAt(0).toUpperCase() + name.slice(1)).replace(/_/g, ' ');
}
