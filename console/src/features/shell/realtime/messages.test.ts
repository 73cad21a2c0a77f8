import { describe, expect, it } from 'vitest';
import { notificationLink } from './messages';

describe('notification links (spec 1 §2.1)', () => {
  it.each([
    [{ action: 'run', uuid: 's-1', run_uuid: 'r-1' }, '/dashboard/session/s-1/r-1'],
    [{ action: 'sandboxes', uuid: 'sb-1' }, '/sandbox/view/sb-1'],
    [{ action: 'workflow', uuid: 'wf-1' }, '/workflow/view/wf-1'],
    [{ action: 'sessions', uuid: 'se-1' }, '/schedule/se-1'],
    [{ action: 'group', uuid: 'g-1' }, '/profile'],
    [{ action: 'quota', uuid: 'g-1' }, '/profile'],
    [{ action: 'sandbox' }, null],
    [{ action: 'feedback', uuid: 'x' }, null],
    [null, null],
  ])('%j → %s', (data, link) => {
    expect(notificationLink(data)).toBe(link);
  });
});
