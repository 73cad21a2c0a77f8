export type RelativeTime =
  | { unit: 'now' }
  | { unit: 'minutes'; count: number }
  | { unit: 'hours'; count: number }
  | { unit: 'longAgo' };

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * Spec 1 §9: under a minute is 'now', then whole minutes, then whole hours (under a day),
 * otherwise 'Long long time ago'. A timestamp slightly in the future (clock skew) is 'now';
 * an unreadable one is long ago.
 */
export function relativeTime(
  timestamp: string | number | Date,
  now: Date | number = Date.now(),
): RelativeTime {
  const at = new Date(timestamp).getTime();
  if (Number.isNaN(at)) return { unit: 'longAgo' };
  const elapsed = new Date(now).getTime() - at;
  if (elapsed < MINUTE) return { unit: 'now' };
  if (elapsed < HOUR) return { unit: 'minutes', count: Math.floor(elapsed / MINUTE) };
  if (elapsed < DAY) return { unit: 'hours', count: Math.floor(elapsed / HOUR) };
  return { unit: 'longAgo' };
}
