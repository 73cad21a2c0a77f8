import { describe, expect, it } from 'vitest';
import { matches } from './session-events.js';

describe('event plan matching', () => {
  it.each([
    // expect, status, body, matches
    ['200', 200, '', true],
    ['200', 201, '', false],
    ['404', 404, 'not here', true],
    [' 503 ', 503, '', true],
    ['', 204, '', true],
    ['', 302, '', false],
    [undefined, 200, '', true],
    ['ready', 200, '{"state":"ready"}', true],
    ['ready', 500, 'ready', true], // a text is looked for in the body, whatever the status
    ['ready', 200, 'not yet', false],
    ['Ready', 200, 'ready', false], // case counts
    ['2000', 200, 'status 2000', true], // four digits are a text
  ] as const)('expect %j, answer %i %j → %s', (expect_, status, body, want) => {
    expect(matches(expect_, status, body)).toBe(want);
  });
});
