import { describe, expect, it } from 'vitest';
import { matches, parseQuery, sessionState, tokenize } from './query';
import { sessionItem } from './testing';
import type { SessionItem } from './types';

const plans = (n: number): SessionItem['plans'] =>
  Array.from({ length: n }, () => ({
    kind: 'schedule' as const,
    start: null,
    url: null,
    periodic_label: null,
    periodic_value: 0,
    end: null,
  }));

const sessions = {
  nightly: sessionItem({
    uuid: '1',
    name: 'Nightly NDVI',
    workflow: 'ndvi v2',
    creation_time: '2026-11-10T12:00:00',
  }),
  weekly: sessionItem({
    uuid: '2',
    name: 'weekly report',
    workflow: 'report',
    running: true,
    plans: plans(3),
    creation_time: '2026-10-01T12:00:00',
  }),
  broken: sessionItem({
    uuid: '3',
    name: 'broken',
    workflow: 'x',
    error: true,
    plans: plans(0),
    creation_time: '2026-11-20T08:00:00',
  }),
  fresh: sessionItem({
    uuid: '4',
    name: 'fresh',
    workflow: '',
    has_run_list: false,
    run_count: 0,
    creation_time: '2026-11-21T08:00:00',
  }),
  general: sessionItem({
    uuid: '5',
    name: 'general',
    general_error: true,
    plans: plans(2),
    creation_time: '2026-09-01T08:00:00',
  }),
};
const all = Object.values(sessions);
const names = (query: string) => all.filter((s) => matches(parseQuery(query), s)).map((s) => s.uuid);

describe('the session search language', () => {
  it.each([
    ['', ['1', '2', '3', '4', '5']],
    ['nightly', ['1']],
    ['NIGHTLY ndvi', ['1']],
    ['name:report', ['2']],
    ['workflow:ndvi', ['1', '5']],
    ['workflow:"ndvi v2"', ['1']],
    ['status:running', ['2']],
    ['status:error', ['3']],
    ['status:general', ['5']],
    ['status:none', ['4']],
    ['status:ok', ['1']],
    ['status:completed', ['1']],
    ['-status:ok', ['2', '3', '4', '5']],
    ['running:true', ['2']],
    ['running:false name:e', ['3', '4', '5']],
    ['plans:0', ['3']],
    ['plans:>1', ['2', '5']],
    ['plans:<=1', ['1', '3', '4']],
    ['creationDate:2026-11-10', ['1']],
    ['creationdate:>2026-11-10', ['3', '4']],
    ['creationDate:>=2026-11-10', ['1', '3', '4']],
    ['creationDate:<2026-10-02', ['2', '5']],
    ['creationDate:2026-10-01..2026-11-10', ['1', '2']],
    ['status:running name:nightly', []],
  ])('%j matches %j', (query, expected) => {
    expect(names(query)).toEqual(expected);
  });

  it.each([
    ['colour:red', ['colour:red']],
    ['status:sleepy', ['status:sleepy']],
    ['running:maybe plans:many', ['running:maybe', 'plans:many']],
    ['creationDate:2026-02-30', ['creationDate:2026-02-30']],
    ['creationDate:yesterday', ['creationDate:yesterday']],
    ['name:', ['name:']],
  ])('%j reports %j and ignores it', (query, errors) => {
    const parsed = parseQuery(query);
    expect(parsed.errors).toEqual(errors);
    expect(parsed.filters).toEqual([]);
  });

  it.each([
    ['a  b', ['a', 'b']],
    ['name:"two words" x', ['name:two words', 'x']],
    ['"open quote', ['open quote']],
  ])('tokenizes %j', (input, tokens) => {
    expect(tokenize(input)).toEqual(tokens);
  });

  it.each([
    [sessions.fresh, 'none'],
    [{ ...sessions.broken, running: true }, 'running'],
    [sessions.broken, 'error'],
    [sessions.general, 'general'],
    [sessions.nightly, 'ok'],
  ] as const)('colours %o as %s', (session, state) => {
    expect(sessionState(session)).toBe(state);
  });
});
