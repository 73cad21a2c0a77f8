import { act, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stubWindowWidth } from '../../test-support/media';
import { SettingsLayout } from './SettingsLayout';

const SECTIONS = [
  { id: 'admin', label: 'Admin' },
  { id: 'users', label: 'Users' },
];

/** A section holding state of its own, as an open flyout or an unsaved form does. */
function Counter() {
  const [count, setCount] = useState(0);
  return <button onClick={() => setCount((c) => c + 1)}>{`Clicked ${count}`}</button>;
}

afterEach(() => vi.unstubAllGlobals());

describe('SettingsLayout', () => {
  it.each([
    ['desktop to mobile', 1400, 574],
    ['mobile to desktop', 574, 1400],
  ])('keeps the section state when the window crosses 574 px (%s)', (_name, from, to) => {
    const window = stubWindowWidth(from);
    render(
      <SettingsLayout title="Organization Settings" sections={SECTIONS} selected="users" onSelect={() => {}}>
        <Counter />
      </SettingsLayout>,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Clicked 0' }));
    const navigation = () => screen.queryAllByRole(from > 574 ? 'navigation' : 'tablist').length;
    expect(navigation()).toBe(1);
    act(() => window.resize(to));
    expect(navigation()).toBe(0);
    expect(screen.getByRole('region', { name: 'Users' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Clicked 1' })).toBeTruthy();
  });
});
