import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { renderWithProviders } from '../../test-support/render';
import { FilterBar } from './FilterBar';

const props = {
  options: [{ id: 'g1', name: 'Engine Room' }],
  groups: ['g1'],
  range: { start: '2026-10-24T00:00', end: '2026-11-24T00:00' },
  problem: null,
  onGroups: () => {},
  onRange: () => {},
  onReset: () => {},
};

describe('FilterBar', () => {
  it.each([
    [false, true],
    [true, false],
  ])('hidden=%s (true while the mobile navigation is open) → shown %s', (hidden, shown) => {
    renderWithProviders(<FilterBar {...props} hidden={hidden} />);
    const bar = screen.queryByRole('search');
    if (shown) expect(bar).toBeVisible();
    else expect(screen.getByRole('search', { hidden: true })).not.toBeVisible();
  });

  it.each([
    ['Start', '24-10-2026 00:00'],
    ['End', '24-11-2026 00:00'],
  ])('%s shows %s (DD-MM-YYYY HH:mm, spec 2 §9)', (label, text) => {
    renderWithProviders(<FilterBar {...props} hidden={false} />);
    const group = screen.getByRole('group', { name: label });
    expect(group.parentElement!.querySelector('input')).toHaveValue(text);
  });

  it.each(['Start', 'End'])('the %s picker moves in 60-minute steps (spec 2 §9)', async (label) => {
    renderWithProviders(<FilterBar {...props} hidden={false} />);
    const group = screen.getByRole('group', { name: label });
    const user = userEvent.setup();
    await user.click(within(group.parentElement!).getByRole('button', { name: /^Choose date/ }));
    const dialog = await screen.findByRole('dialog');
    await user.click(within(dialog).getByRole('gridcell', { name: '10' }));
    const times = within(within(dialog).getByRole('listbox', { name: 'Select time' })).getAllByRole('option');
    // One choice an hour: 00:00, 01:00 … 23:00.
    expect(times.map((o) => o.textContent)).toEqual(
      Array.from({ length: 24 }, (_v, h) => `${String(h).padStart(2, '0')}:00`),
    );
  });
});
