// Sizes and dates as the run screens show them (spec 2 §9).
import { formatDateTime } from '../../lib/datetime';
import { isZeroDate } from '../sessions/types';

const UNITS = ['B', 'KB', 'MB', 'GB'] as const;

/** Binary units with 2 decimals: 1536 → '1.50 KB'; beyond GB it stays in GB. */
export function formatSize(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '-';
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(2)} ${UNITS[unit]}`;
}

/** A run's start or end; '-' for the zero date 0001-01-01 (unset). */
export const formatRunDate = (value: string | null | undefined) =>
  isZeroDate(value) ? '-' : formatDateTime(value!);
