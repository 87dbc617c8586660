/** Usage is kept per UTC day (contract §8): the dashboard's date ranges are UTC days as YYYY-MM-DD. */
export function utcDay(d: Date = new Date()): string {
  return d.toISOString().slice(0, 10);
}

export function addDays(day: string, n: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return utcDay(d);
}

export function monthStart(day: string = utcDay()): string {
  return `${day.slice(0, 7)}-01`;
}

/** Every day from start to end, inclusive. */
export function daysBetween(start: string, end: string): string[] {
  const out: string[] = [];
  for (let d = start; d <= end && out.length < 1000; d = addDays(d, 1)) out.push(d);
  return out;
}

const short = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
export function dayLabel(day: string): string {
  return short.format(new Date(`${day}T00:00:00Z`));
}
