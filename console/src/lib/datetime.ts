// The console's date formats (spec 1 §9: DD/MM/YYYY HH:mm:ss), in the browser's time zone.

const pad = (n: number) => String(n).padStart(2, '0');
const asDate = (value: string | Date) => (value instanceof Date ? value : new Date(value));

/** DD/MM/YYYY */
export function formatDate(value: string | Date): string {
  const d = asDate(value);
  return `${pad(d.getDate())}/${pad(d.getMonth() + 1)}/${d.getFullYear()}`;
}

/** HH:mm:ss (24 hours) */
export function formatTime(value: string | Date): string {
  const d = asDate(value);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** DD/MM, a day on a chart's time axis. */
export function formatDayMonth(value: string | Date | number): string {
  const d = new Date(value);
  return `${pad(d.getDate())}/${pad(d.getMonth() + 1)}`;
}

/** HH:mm (24 hours), an hour on a chart's time axis. */
export function formatHourMinute(value: string | Date | number): string {
  const d = new Date(value);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** DD/MM/YYYY HH:mm:ss (spec 1 §9). */
export const formatDateTime = (value: string | Date) => `${formatDate(value)} ${formatTime(value)}`;

/** A local calendar day as YYYY-MM-DD (sorts like the days themselves). */
export function dayKey(value: string | Date): string {
  const d = asDate(value);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}
