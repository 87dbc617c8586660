/**
 * RFC 4180 CSV: fields with commas, quotes or line breaks are quoted. A text
 * field starting with = + - @ is prefixed with ' so a spreadsheet never runs
 * it as a formula (key names are user input).
 */
export function toCsv(rows: (string | number)[][]): string {
  const cell = (v: string | number) => {
    let s = String(v);
    if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
    return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return rows.map((r) => r.map(cell).join(',')).join('\r\n') + '\r\n';
}
