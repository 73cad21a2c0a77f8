/**
 * resource.Quantity for CEL's `quantity()` library: parsed exactly as a rational number
 * (a bigint over a power of ten), so comparisons and sums never round.
 */

const BINARY: Record<string, bigint> = {
  Ki: 1n << 10n,
  Mi: 1n << 20n,
  Gi: 1n << 30n,
  Ti: 1n << 40n,
  Pi: 1n << 50n,
  Ei: 1n << 60n,
};
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

// apimachinery's quantity grammar: <signedNumber><suffix>, suffix binary, decimal or exponent.
const QUANTITY = /^([+-]?)(\d*)(?:\.(\d*))?(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/;

export class Quantity {
  /** The value is `units / 10^scale`. */
  private constructor(
    readonly units: bigint,
    readonly scale: number,
  ) {}

  static parse(text: string): Quantity {
    const m = QUANTITY.exec(text);
    if (!m || (m[2] === '' && (m[3] ?? '') === ''))
      throw new Error(
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
      );
    const [, sign, whole, fraction = '', suffix = ''] = m;
    let units = BigInt(`${whole || '0'}${fraction}`);
    let scale = fraction.length;
    if (BINARY[suffix] !== undefined) units *= BINARY[suffix];
    else if (suffix.startsWith('e') || suffix.startsWith('E')) scale -= Number(suffix.slice(1));
    else scale -= DECIMAL[suffix]!;
    if (sign === '-') units = -units;
    return Quantity.of(units, scale);
  }

  static isValid(text: string): boolean {
    try {
      Quantity.parse(text);
      return true;
    } catch {
      return false;
    }
  }

  private static of(units: bigint, scale: number): Quantity {
    if (scale < 0) return new Quantity(units * 10n ** BigInt(-scale), 0);
    return new Quantity(units, scale);
  }

  private aligned(other: Quantity): [bigint, bigint, number] {
    const scale = Math.max(this.scale, other.scale);
    return [
      this.units * 10n ** BigInt(scale - this.scale),
      other.units * 10n ** BigInt(scale - other.scale),
      scale,
    ];
  }

  compareTo(other: Quantity): number {
    const [a, b] = this.aligned(other);
    return a < b ? -1 : a > b ? 1 : 0;
  }

  add(other: Quantity): Quantity {
    const [a, b, scale] = this.aligned(other);
    return Quantity.of(a + b, scale);
  }

  sub(other: Quantity): Quantity {
    const [a, b, scale] = this.aligned(other);
    return Quantity.of(a - b, scale);
  }

  sign(): number {
    return this.units < 0n ? -1 : this.units > 0n ? 1 : 0;
  }

  isInteger(): boolean {
    return this.units % 10n ** BigInt(this.scale) === 0n;
  }

  /** The value as int64, or an error as apimachinery's AsInt64 refuses it. */
  asInteger(): bigint {
    const limit = 1n << 63n;
    const value = this.units / 10n ** BigInt(this.scale);
    if (!this.isInteger() || value >= limit || value < -limit)
      throw new Error('cannot convert value to integer');
    return value;
  }

  asApproximateFloat(): number {
    return Number(this.units) / 10 ** this.scale;
  }
}
