import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import i18n from '../i18n';
import { DateTimeField } from './DateTimeField';

vi.setConfig({ testTimeout: 60_000 });

function Field({ initial }: { initial: string }) {
  const [value, setValue] = useState(initial);
  return (
    <>
      <DateTimeField label="When" value={value} minutesStep={5} onChange={setValue} />
      <output data-testid="value">{value}</output>
    </>
  );
}

/** The text the field shows (its hidden input holds the sections' text). */
const shown = () => document.querySelector<HTMLInputElement>('input[aria-hidden="true"]')!.value;
const held = () => screen.getByTestId('value').textContent;

describe('DateTimeField', () => {
  it.each([
    ['2026-10-24T07:00', '24-10-2026 07:00'],
    ['2026-01-02T23:59', '02-01-2026 23:59'],
    ['2026-06-30T13:05', '30-06-2026 13:05'],
    ['', ''],
  ])('%j shows %j (DD-MM-YYYY HH:mm, 24 hours)', (value, text) => {
    render(<Field initial={value} />);
    expect(shown()).toBe(text);
  });

  it.each([
    ['', '01012099 0000', '2099-01-01T00:00'],
    ['2026-10-24T07:00', '31122030 2345', '2030-12-31T23:45'],
    // Incomplete: the form holds '' (as a half-filled datetime-local input gives).
    ['2026-10-24T07:00', '0101', ''],
  ])('from %j, typing %j holds %j', async (initial, keys, value) => {
    render(<Field initial={initial} />);
    const user = userEvent.setup();
    await user.click(
      within(screen.getByRole('group', { name: 'When' })).getByRole('spinbutton', { name: 'Day' }),
    );
    await user.keyboard('{Control>}a{/Control}{Backspace}');
    await user.keyboard(keys);
    expect(held()).toBe(value);
    if (value)
      expect(shown()).toBe(
        `${value.slice(8, 10)}-${value.slice(5, 7)}-${value.slice(0, 4)} ${value.slice(11)}`,
      );
    else expect(shown()).toMatch(/^01-01-YYYY/);
  });

  it('clearing holds an empty string', async () => {
    render(<Field initial="2026-10-24T07:00" />);
    await userEvent.setup().click(screen.getByRole('button', { name: 'Clear' }));
    expect(held()).toBe('');
    expect(shown()).toBe('');
  });

  it.each([
    ['en', 'Choose date, selected date is', 'Hours'],
    ['it', 'Scegli la data, la data selezionata è', 'Ore'],
    ['fr', 'Choisir la date, la date sélectionnée est', 'Heures'],
  ])("%s: the picker's own texts are translated, the format stays", async (language, open, hours) => {
    await i18n.changeLanguage(language);
    try {
      render(<Field initial="2026-10-24T07:00" />);
      expect(screen.getByRole('button', { name: new RegExp(`^${open}`) })).toBeInTheDocument();
      expect(screen.getByRole('spinbutton', { name: hours })).toHaveTextContent('07');
      expect(shown()).toBe('24-10-2026 07:00');
    } finally {
      await i18n.changeLanguage('en');
    }
  });
});
