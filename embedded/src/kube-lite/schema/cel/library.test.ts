import { describe, expect, it } from 'vitest';
import { metered } from './cost.js';
import { ruleEnvironment } from './library.js';

const evaluate = (expr: string, self?: unknown) =>
  metered(1_000_000, () => ruleEnvironment.evaluate(expr, { self, oldSelf: undefined })).value;

describe('Kubernetes CEL libraries', () => {
  it.each([
    // lists
    ['[1, 2, 2].isSorted()', true],
    ['["b", "a"].isSorted()', false],
    ['[1, 2, 3].sum()', 6n],
    ['[0.5, 1.0].sum()', 1.5],
    ['[].sum()', 0n],
    ['[3, 1, 2].min()', 1n],
    ['["a", "c", "b"].max()', 'c'],
    ['[1, 2, 1].indexOf(1)', 0n],
    ['[1, 2, 1].lastIndexOf(1)', 2n],
    ['[1, 2].indexOf(3)', -1n],
    // strings
    ['"héllo".charAt(1)', 'é'],
    ['"abc".charAt(3)', ''],
    ['"abcabc".indexOf("c")', 2n],
    ['"abcabc".lastIndexOf("c")', 5n],
    ['"AbC".lowerAscii()', 'abc'],
    ['"AbC".upperAscii()', 'ABC'],
    ['"a-b-c".replace("-", "+")', 'a+b+c'],
    ['"a-b-c".replace("-", "+", 1)', 'a+b-c'],
    ['"a,b,c".split(",")', ['a', 'b', 'c']],
    ['"hello".substring(1, 3)', 'el'],
    ['"  x ".trim()', 'x'],
    ['["a", "b"].join("/")', 'a/b'],
    // regex (RE2 syntax)
    ['"abc123def45".find("[0-9]+")', '123'],
    ['"abc".find("[0-9]+")', ''],
    ['"abc123def45".findAll("[0-9]+")', ['123', '45']],
    ['"a1b2c3".findAll("[0-9]", 2)', ['1', '2']],
    ['"abc".matches("^a.c$")', true],
    // quantity
    ['quantity("1Gi").isGreaterThan(quantity("1G"))', true],
    ['quantity("500m").isLessThan(quantity("1"))', true],
    ['quantity("1k") == quantity("1000")', true],
    ['quantity("1.5").isInteger()', false],
    ['quantity("2Ki").asInteger()', 2048n],
    ['quantity("250m").asApproximateFloat()', 0.25],
    ['quantity("1").add(quantity("500m")).compareTo(quantity("1500m"))', 0n],
    ['quantity("1").sub(2).sign()', -1n],
    ['isQuantity("10Mi")', true],
    ['isQuantity("ten")', false],
    // macros and standard functions
    ['[1, 2, 3].all(x, x > 0)', true],
    ['[1, 2, 3].exists(x, x > 2)', true],
    ['[1, 2, 3].exists_one(x, x > 1)', false],
    ['[1, 2, 3].map(x, x * 2)', [2n, 4n, 6n]],
    ['[1, 2, 3].filter(x, x % 2 == 1)', [1n, 3n]],
    ['size("abc") == 3', true],
  ])('%s', (expr, expected) => {
    expect(evaluate(expr)).toEqual(expected);
  });

  it.each([
    ['has(self.a)', { a: 1n }, true],
    ['has(self.b)', { a: 1n }, false],
    ['self.all(k, k.startsWith("x"))', { xa: 1n, xb: 2n }, true],
    ['"a" in self', { a: 1n }, true],
    ['self.l.isSorted()', { l: [1n, 5n] }, true],
  ])('%s over %o', (expr, self, expected) => {
    expect(evaluate(expr, self)).toEqual(expected);
  });

  it.each([
    ['[].min()', /must not be empty/],
    ['quantity("ten")', /quantities must match/],
    ['"abc".charAt(5)', /index out of range/],
    ['"abc".find("(")', /invalid regular expression/],
  ])('%s fails with %s', (expr, message) => {
    expect(() => evaluate(expr)).toThrow(message);
  });

  it('stops an expression past its cost limit, even inside a macro that absorbs errors', () => {
    const self = { l: Array.from({ length: 100 }, (_, i) => BigInt(i)) };
    expect(() =>
      metered(10_000, () =>
        ruleEnvironment.evaluate('self.l.exists(x, self.l.all(y, y >= 0) && x < 0)', { self }),
      ),
    ).toThrow('operation cancelled: actual cost limit exceeded');
    expect(
      metered(10_000, () => ruleEnvironment.evaluate('self.l.size() == 100', { self })).cost,
    ).toBeLessThan(10);
  });
});
