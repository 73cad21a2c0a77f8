import { describe, expect, it } from 'vitest';
import {
  changePasswordProblem,
  isEmail,
  isStrongPassword,
  registrationProblem,
  tagProblem,
  type RegistrationForm,
} from './validation';

describe('password strength: at least 4 of length ≥ 8, upper, lower, digit, special', () => {
  it.each([
    ['Abcdefg1', true], // length, upper, lower, digit
    ['abcdefg1!', true], // length, lower, digit, special
    ['Ab1!', true], // upper, lower, digit, special (short)
    ['abcdefgh', false], // length, lower
    ['abcdefg1', false], // length, lower, digit
    ['ABCDEFG1', false], // length, upper, digit
    ['', false],
  ])('%j strong = %s', (password, strong) => {
    expect(isStrongPassword(password)).toBe(strong);
  });
});

describe('e-mail format', () => {
  it.each([
    ['ada@example.org', true],
    [' ada@example.org ', true],
    ['ada.lovelace+x@mail.example.co.uk', true],
    ['ada@example', false],
    ['ada@@example.org', false],
    ['ada example@example.org', false],
    ['@example.org', false],
    ['ada@.org', false],
    ['ada@example..org', false],
  ])('%j valid = %s', (email, valid) => {
    expect(isEmail(email)).toBe(valid);
  });
});

const registration = (over: Partial<RegistrationForm> = {}): RegistrationForm => ({
  first_name: 'Ada',
  last_name: 'Lovelace',
  email: 'ada@example.org',
  password: 'Secret-123',
  confirm: 'Secret-123',
  tabValue: 'Analytical Engines',
  ...over,
});

describe('registration', () => {
  it.each([
    [{ first_name: '' }, 'allFieldsRequired'],
    [{ last_name: ' ' }, 'allFieldsRequired'],
    [{ email: '' }, 'allFieldsRequired'],
    [{ password: '', confirm: '' }, 'allFieldsRequired'],
    [{ tabValue: '' }, 'allFieldsRequired'],
    [{ confirm: 'Secret-124' }, 'passwordsDontMatch'],
  ])('%j → %s', (over, text) => {
    expect(registrationProblem(registration(over))).toEqual({ title: 'registrationError', text });
  });
  it('accepts a complete, matching form', () => {
    expect(registrationProblem(registration())).toBeNull();
  });
});

describe('change password', () => {
  it.each([
    [{ current: '' }, 'allFieldsRequired'],
    [{ repeat: 'Other-123' }, 'passwordMismatch'],
    [{ next: 'weakweak', repeat: 'weakweak' }, 'passwordTooWeak'],
  ])('%j → %s', (over, text) => {
    const form = { current: 'Old-pass-1', next: 'New-pass-1', repeat: 'New-pass-1', ...over };
    expect(changePasswordProblem(form)).toEqual({ title: 'invalidPassword', text });
  });
  it('accepts a strong, repeated password', () => {
    expect(changePasswordProblem({ current: 'a', next: 'New-pass-1', repeat: 'New-pass-1' })).toBeNull();
  });
});

describe('tag', () => {
  const others = [{ label: 'gpu', color: '#112233' }];
  it.each([
    [{ label: 'x', color: '#12345' }, 'enterValidColor'],
    [{ label: 'x', color: 'dddddd' }, 'enterValidColor'],
    [{ label: 'x', color: '#gggggg' }, 'enterValidColor'],
    [{ label: ' ', color: '#dddddd' }, 'enterValidTagLabel'],
    [{ label: 'gpu', color: '#dddddd' }, 'tagAlreadyUsed'],
    [{ label: 'cpu', color: '#112233' }, 'tagAlreadyUsed'],
    [{ label: 'cpu', color: '#AABBCC' }, null],
  ])('%j → %s', (tag, problem) => {
    expect(tagProblem(tag, others)).toBe(problem);
  });
});
