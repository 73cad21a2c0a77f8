import { describe, expect, it } from 'vitest';
import { activeSection } from './sections';

describe('active section', () => {
  it.each([
    ['/sandbox/list', 'sandbox'],
    ['/sandbox/edit/3f1c', 'sandbox'],
    ['/sandbox/settings', 'sandbox'],
    ['/workflow/create', 'workflow'],
    ['/workflow/view/9a', 'workflow'],
    ['/session/list', 'session'],
    ['/schedule/77', 'session'],
    ['/event/77', 'session'],
    ['/dashboard', null],
    ['/dashboard/session/1/2', null],
    ['/sandboxes', null],
    ['/settings/users', null],
  ])('%s → %s', (pathname, expected) => {
    expect(activeSection(pathname)).toBe(expected);
  });
});
