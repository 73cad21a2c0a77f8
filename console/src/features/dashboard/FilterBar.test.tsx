import { screen } from '@testing-library/react';
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

  it.each(['Start', 'End'])('the %s input moves in 60-minute steps (spec 2 §9)', (label) => {
    renderWithProviders(<FilterBar {...props} hidden={false} />);
    expect(screen.getByLabelText(label)).toHaveAttribute('step', '3600');
  });
});
