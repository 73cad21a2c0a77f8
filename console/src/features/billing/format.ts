// How the Billing page writes the route's amounts, times and machine sizes (spec 2 §9).
// Amounts are formatted from the route's exact nano-dollar strings (a decimal string, not a
// float), so the cents shown are the exact amount rounded half up, as the API's totals are.

/** A decimal string of dollars from nano-dollars: '15000000' → '15000000E-9' (exact, no float). */
const dollarsText = (nano: string) => `${nano}E-9` as `${number}`;

/** Dollars with cents in the language's currency format, e.g. $1,234.57. */
export function formatDollars(nano: string, language: string): string {
  return new Intl.NumberFormat(language, { style: 'currency', currency: 'USD' }).format(dollarsText(nano));
}

/** The exact amount (to the nano-dollar), for the tooltip of a rounded one. */
export function formatExactDollars(nano: string, language: string): string {
  return new Intl.NumberFormat(language, {
    style: 'currency',
    currency: 'USD',
    maximumFractionDigits: 9,
  }).format(dollarsText(nano));
}

/** An execution time in nanoseconds as H:MM:SS (whole seconds, rounded down). */
export function formatDuration(ns: number): string {
  const seconds = Math.max(0, Math.floor(ns / 1e9));
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${Math.floor(seconds / 3600)}:${pad(Math.floor(seconds / 60) % 60)}:${pad(seconds % 60)}`;
}

/** The priced machine size in cores and GB (the route gives millicores and MB). */
export const machineSize = (machine: { cpu: number; memory: number }) => ({
  cpu: machine.cpu / 1000,
  memory: machine.memory / 1024,
});
