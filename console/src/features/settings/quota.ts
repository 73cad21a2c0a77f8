// Quota arithmetic of the settings screens (spec 3 §5, §9), kept pure so it is tested alone.
// The API stores CPU in millicores and memory and disk in MB; the screens show cores and GB.
import type { Resources } from './types';

export const RESOURCES = ['cpu', 'memory', 'disk'] as const;
export type Resource = (typeof RESOURCES)[number];

/** GID and UID minimum (spec 3 §9). */
export const MIN_GID = 1000;
export const MIN_UID = 1000;

/** Slider steps: fixed values in cores / GB, percentages in percent. */
export const FIXED_STEPS: Resources = { cpu: 0.5, memory: 0.5, disk: 0.1 };
export const PERCENT_STEPS: Resources = { cpu: 1, memory: 1, disk: 0.5 };
/** User quota slider ticks, in percent of the slider's maximum. */
export const TICKS_PERCENT = [25, 50, 75] as const;

const UNIT: Resources = { cpu: 1000, memory: 1024, disk: 1024 };

/** Round to the step's decimals (0.1 + 0.2 is 0.3 here). */
const tidy = (value: number, step: number) => {
  const decimals = (String(step).split('.')[1] ?? '').length;
  return Number(value.toFixed(decimals));
};

/** The largest multiple of `step` not above `value`, never below 0. */
export function floorToStep(value: number, step: number): number {
  if (!(value > 0)) return 0;
  return tidy(Math.floor(value / step + 1e-9) * step, step);
}

/** The nearest multiple of `step`. */
export function roundToStep(value: number, step: number): number {
  return tidy(Math.round(value / step) * step, step);
}

const map = (f: (r: Resource) => number): Resources => ({
  cpu: f('cpu'),
  memory: f('memory'),
  disk: f('disk'),
});

/** API units (millicores, MB) → cores and GB. */
export const toDisplay = (api: Resources): Resources => map((r) => api[r] / UNIT[r]);
/** Cores and GB → API units, whole millicores and MB. */
export const toApi = (shown: Resources): Resources => map((r) => Math.round(shown[r] * UNIT[r]));

/**
 * Free capacity for an organization's quota sliders (spec 3 §5): the API's `free` (already
 * rounded down) plus, when editing, the organization's own quota; rounded down to the fixed
 * steps in cores / GB. null: unknown capacity, nothing capped.
 */
export function organizationMaxima(free: Resources | null, current?: Resources): Resources | null {
  if (!free) return null;
  const shown = toDisplay(map((r) => free[r] + (current?.[r] ?? 0)));
  return map((r) => floorToStep(shown[r], FIXED_STEPS[r]));
}

export interface MemberShare extends Resources {
  use_percentage: boolean;
}

/**
 * The user quota modal's maxima (spec 3 §5): 100 in percentage mode; in fixed mode the
 * group's quota minus the other members' fixed quotas (percentage shares are relative and
 * do not count, as the API checks it), in cores / GB, rounded down to the step, never below 0.
 */
export function userQuotaMaxima(group: Resources, others: MemberShare[], percentage: boolean): Resources {
  if (percentage) return { cpu: 100, memory: 100, disk: 100 };
  const left = map((r) => others.filter((o) => !o.use_percentage).reduce((rest, o) => rest - o[r], group[r]));
  const shown = toDisplay(left);
  return map((r) => floorToStep(shown[r], FIXED_STEPS[r]));
}

/**
 * Switching the quota mode converts the values (spec 3 §4): a fixed value becomes its share
 * of the group's quota, a percentage becomes that share of it; each rounded to the new mode's
 * step and kept within its maximum. `values` and `group` are in cores / GB.
 */
export function convertQuota(
  values: Resources,
  group: Resources,
  toPercentage: boolean,
  maxima: Resources,
): Resources {
  return map((r) => {
    const converted = toPercentage
      ? group[r] > 0
        ? (values[r] / group[r]) * 100
        : 0
      : (values[r] * group[r]) / 100;
    const step = (toPercentage ? PERCENT_STEPS : FIXED_STEPS)[r];
    return Math.min(roundToStep(converted, step), maxima[r]);
  });
}

/** Slider marks at 25, 50 and 75 % of the maximum. */
export const quotaTicks = (max: number) => TICKS_PERCENT.map((p) => ({ value: (max * p) / 100 }));

/** The UID rule (spec 3 §5): at least 1000 and not taken. */
export const uidAllowed = (uid: number, taken: readonly number[] = []) =>
  Number.isInteger(uid) && uid >= MIN_UID && !taken.includes(uid);

/** Memory as the organization list shows it (spec 3 §9): MB below 1024, GB below 1048576, else TB. */
export function formatMegabytes(mb: number): string {
  if (mb < 1024) return `${tidy(mb, 0.1)} MB`;
  if (mb < 1_048_576) return `${tidy(mb / 1024, 0.1)} GB`;
  return `${tidy(mb / 1_048_576, 0.1)} TB`;
}

/**
 * The group quota sliders' maxima (spec 3 §5): the organization's quota minus the other
 * groups' quotas, in cores / GB rounded down to the steps, never below 0.
 */
export function groupMaxima(
  organization: Resources,
  groups: readonly (Resources & { id: string })[],
  editing?: string,
): Resources {
  const others = groups.filter((g) => g.id !== editing);
  const left = map((r) => others.reduce((rest, g) => rest - g[r], organization[r]));
  const shown = toDisplay(left);
  return map((r) => floorToStep(shown[r], FIXED_STEPS[r]));
}
