import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '../../test-support/render';
import { newPlan, toLocalInput, toSchedules, type PlanForm } from './form';
import { PlanPanel } from './PlanPanel';

vi.setConfig({ testTimeout: 60_000 });

const START = '2026-12-01T10:00:00.000Z';
const UNTIL = '2027-03-01T10:05:00.000Z';

/** The schedule of a saved session as the form holds it, edited through the panel. */
function Schedules({ seen }: { seen: (plans: PlanForm[]) => void }) {
  const [plans, setPlans] = useState<PlanForm[]>([
    { ...newPlan(), time: toLocalInput(START), periodic: true, isUntil: true, until: toLocalInput(UNTIL) },
  ]);
  seen(plans);
  return (
    <PlanPanel
      kind="schedule"
      plans={plans}
      onPlans={(next) => {
        setPlans(next);
        seen(next);
      }}
    />
  );
}

/** DD-MM-YYYY HH:mm of an ISO date in the browser's zone. */
const shownOf = (iso: string) => {
  const local = toLocalInput(iso);
  return `${local.slice(8, 10)}-${local.slice(5, 7)}-${local.slice(0, 4)} ${local.slice(11)}`;
};
const field = (label: string) => screen.getByRole('group', { name: label });

describe('PlanPanel', () => {
  it.each([
    ['Start time', START],
    ['Until', UNTIL],
  ])('%s shows %s as DD-MM-YYYY HH:mm; unchanged, the schedule goes back as it came', (label, iso) => {
    let plans: PlanForm[] = [];
    renderWithProviders(<Schedules seen={(p) => (plans = p)} />);
    expect(field(label).querySelector('input')).toHaveValue(shownOf(iso));
    expect(toSchedules(plans)).toEqual([
      { start: START, periodic: true, periodic_label: 'daily', periodic_value: 1, end: UNTIL },
    ]);
  });

  it.each([
    ['Start time', '05012027 0930', { start: new Date('2027-01-05T09:30').toISOString(), end: UNTIL }],
    ['Until', '06022027 1800', { start: START, end: new Date('2027-02-06T18:00').toISOString() }],
  ])('typing %s %j goes into the schedule', async (label, keys, expected) => {
    let plans: PlanForm[] = [];
    renderWithProviders(<Schedules seen={(p) => (plans = p)} />);
    const user = userEvent.setup();
    await user.click(within(field(label)).getByRole('spinbutton', { name: 'Day' }));
    await user.keyboard(`{Control>}a{/Control}{Backspace}${keys}`);
    expect(toSchedules(plans)).toEqual([
      { periodic: true, periodic_label: 'daily', periodic_value: 1, ...expected },
    ]);
  });
});
